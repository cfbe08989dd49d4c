"""The JSON Schemas of our own feeds (/feeds/schema/) hold every file the compile writes, and
`manage.py check_feeds` checks every feed (the Open511 XML against Open511's RelaxNG, each CAP
message against CAP 1.2's XSD) and tells an operator what in a stored file is wrong, and where."""

from datetime import timedelta
from io import StringIO
from pathlib import Path
from urllib.parse import urlsplit

import orjson
import pytest
from django.core.files.storage import default_storage
from django.core.management import CommandError, call_command
from django.db import transaction
from django.test import Client
from django.utils import timezone
from jsonschema import Draft202012Validator

from cap.models import CapMessage
from cap.services import issue_messages
from closures.reasons import Reason
from closures.services import create_closure
from core.actors import Actor, Via
from core.links import absolute
from demo.loader import DEMO_SYSTEM_ID, load_demo
from public.feed_schemas import SCHEMAS, problems, schema
from publishing.scheduling import record_compile_request
from tests.factories import (
    PointFactory,
    TrailActivityFactory,
    TrailFactory,
    TrailSystemFactory,
    UpdateFactory,
)
from trails.enums import Difficulty
from trails.models import TrailSystem
from updates.services import create_update

pytestmark = pytest.mark.django_db

MANAGER = Actor("manager-uid", Via.ID_TOKEN)
TWO_LINES = {
    "type": "MultiLineString",
    "coordinates": [[[-113.95, 45.69], [-113.94, 45.70]], [[-113.93, 45.70], [-113.92, 45.71]]],
}


@pytest.fixture
def publish(django_capture_on_commit_callbacks):
    def run(system: TrailSystem) -> TrailSystem:
        with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
            record_compile_request(system, reason="test")
        system.refresh_from_db()
        return system

    return run


def published_map(system: TrailSystem) -> dict:
    with default_storage.open(system.geo_json_path, "rb") as stored:
        return orjson.loads(stored.read())


def closures(system: TrailSystem) -> dict:
    return orjson.loads(Client().get(f"/feeds/{system.pk}/closures.geojson").content)


def check_feeds(system_id: str) -> str:
    out = StringIO()
    call_command("check_feeds", system_id, stdout=out)
    return out.getvalue()


def test_the_demo_is_valid_and_check_feeds_says_so(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        system, _ = load_demo()
    system.refresh_from_db()
    collection = published_map(system)
    assert collection["features"]
    assert problems("published-map", collection) == []
    assert problems("closures", closures(system)) == []
    out = check_feeds(DEMO_SYSTEM_ID)
    assert "published-map" in out and "closures" in out
    assert f"open511_xml ({absolute('feed-open511-xml', system.pk)}): valid" in out
    assert (
        f"open511_jurisdiction ({absolute('feed-open511-jurisdiction', system.pk)}): valid" in out
    )
    assert f"cap ({absolute('feed-cap', system.pk)}): lists no message" in out
    assert f"ical ({absolute('feed-calendar', system.pk)}): no schema to check against" in out
    assert f"Every feed of {DEMO_SYSTEM_ID} is valid." in out


def danger_message(system: TrailSystem) -> CapMessage:
    """A CAP Alert of a danger notice, as cap.atom lists it."""
    create_update(
        system=system,
        actor=MANAGER,
        type="notice",
        description="Cornices unstable on the ridge",
        severity="danger",
    )
    (message,) = issue_messages(system=system)
    return message


def test_each_cap_message_listed_is_checked_against_cap_1_2(django_capture_on_commit_callbacks):
    system = TrailSystemFactory()
    TrailFactory(trail_system=system)
    message = danger_message(system)
    out = check_feeds(system.pk)
    url = absolute("feed-cap-message", system.pk, message.identifier)
    assert f"cap ({url}): valid" in out
    assert f"open511_xml ({absolute('feed-open511-xml', system.pk)}): valid" in out
    assert f"Every feed of {system.pk} is valid." in out


def test_a_cap_message_altered_by_hand_is_named_with_its_line_and_element():
    system = TrailSystemFactory()
    TrailFactory(trail_system=system)
    message = danger_message(system)
    CapMessage.objects.filter(pk=message.pk).update(info={**message.info, "urgency": "Whenever"})
    out = StringIO()
    with pytest.raises(CommandError, match="1 feed"):
        call_command("check_feeds", system.pk, stdout=out)
    report = out.getvalue()
    url = absolute("feed-cap-message", system.pk, message.identifier)
    assert f"cap ({url}): 1 problem(s)" in report
    assert (
        "  line 14 /alert/info/urgency: Element '{urn:oasis:names:tc:emergency:cap:1.2}urgency'"
        in report
    )
    assert "The value 'Whenever' is not an element of the set" in report
    assert f"open511_xml ({absolute('feed-open511-xml', system.pk)}): valid" in report


def test_an_empty_system_publishes_valid_files(publish):
    system = publish(TrailSystemFactory())
    assert published_map(system)["features"] == []
    assert problems("published-map", published_map(system)) == []
    assert problems("closures", closures(system)) == []


def test_trails_with_activities_points_and_every_update_type_are_valid(publish):
    system = TrailSystemFactory()
    trail = TrailFactory(trail_system=system, geometry=TWO_LINES, difficulty="diamond")
    TrailActivityFactory(trail=trail, value="skiing", status="Open", difficulty="square")
    TrailActivityFactory(trail=trail, value="snowshoeing", status="Closed")
    TrailFactory(trail_system=system, type="Lift", status="Caution")
    PointFactory(trail_system=system, wait_time=5, dining_options={"cafe": True})
    PointFactory(trail_system=system, status="Closed")
    UpdateFactory(trail_system=system, severity="danger")
    UpdateFactory(trail_system=system, type="notice", all_trails=True)
    UpdateFactory(trail_system=system, type="surfaceConditions", conditions=["icy"]).trails.add(
        trail
    )
    UpdateFactory(
        trail_system=system,
        type="snowReport",
        base_depth=40,
        last_snow_date=timezone.now() - timedelta(days=1),
    )
    collection = published_map(publish(system))
    assert [f["geometry"]["type"] for f in collection["features"]].count("Point") == 2
    assert any(f["properties"].get("updates") for f in collection["features"])
    assert problems("published-map", collection) == []


def test_a_closure_in_effect_is_valid(django_capture_on_commit_callbacks):
    system = TrailSystemFactory()
    trail = TrailFactory(trail_system=system)
    TrailActivityFactory(trail=trail, value="skiing")
    with django_capture_on_commit_callbacks(execute=True):
        create_closure(trail=trail, actor=MANAGER, reason="fire", note="Smoke.", detour="Road.")
    document = closures(system)
    assert len(document["features"]) == 1
    assert problems("closures", document) == []


def test_a_file_altered_by_hand_is_named_with_the_wrong_json_path(publish):
    system = TrailSystemFactory()
    TrailActivityFactory(trail=TrailFactory(trail_system=system), value="hiking")
    PointFactory(trail_system=system)
    system = publish(system)
    collection = published_map(system)
    collection["features"][0]["properties"]["status"] = "Opened"
    del collection["features"][1]["properties"]["pointId"]
    # By hand, on the disk: not published (the suite's storage would refuse it).
    Path(default_storage.path(system.geo_json_path)).write_bytes(orjson.dumps(collection))
    out = StringIO()
    with pytest.raises(CommandError, match="1 feed"):
        call_command("check_feeds", system.pk, stdout=out)
    report = out.getvalue()
    assert f"published-map ({system.geo_json_path}): 2 problem(s)" in report
    assert "$.features[0].properties.status: 'Opened' is not one of" in report
    assert "$.features[1].properties: 'pointId' is a required property" in report
    assert "closures (" in report and "): valid" in report


def test_check_feeds_of_an_unknown_system_says_so():
    with pytest.raises(CommandError, match="No trail system nowhere"):
        check_feeds("nowhere")


def test_the_schemas_are_listed_and_served_each_at_its_own_url_to_any_origin():
    client = Client()
    index = client.get("/feeds/schema/")
    assert index.status_code == 200
    assert index["Access-Control-Allow-Origin"] == "*"
    listed = {entry["name"]: entry for entry in index.json()["schemas"]}
    assert set(listed) == set(SCHEMAS) == {"published-map", "closures", "discovery"}
    for name, entry in listed.items():
        response = client.get(urlsplit(entry["url"]).path)
        assert response.status_code == 200
        assert response["Content-Type"] == "application/schema+json"
        assert response["Access-Control-Allow-Origin"] == "*"
        served = response.json()
        assert entry["url"].endswith(f"/feeds/schema/{name}.json")
        assert served["$id"] == entry["url"]
        assert served["title"] == entry["title"]
        Draft202012Validator.check_schema(served)
    assert client.get("/feeds/schema/nothing.json").status_code == 404


def test_the_schemas_enums_are_the_codes():
    closure_properties = schema("closures")["$defs"]["closureFeature"]["properties"]
    assert closure_properties["properties"]["properties"]["reason"]["enum"] == list(Reason.values)
    trail = schema("published-map")["$defs"]["trailFeature"]["properties"]["properties"]
    assert trail["properties"]["difficulty"]["enum"] == [*Difficulty.values, ""]
