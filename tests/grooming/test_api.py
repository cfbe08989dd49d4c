"""POST /trail-systems/:id/grooming-tracks and GET /trail-systems/:id/grooming."""

import json
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import orjson
import pytest
from django.core.files.storage import default_storage
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from grooming import selectors
from grooming.models import GroomedTrail, GroomingPass
from publishing.models import CompileRequest
from tests.factories import SubscriberFactory, TrailFactory, UpdateFactory
from tests.grooming.geo import gpx, path
from trails.models import Trail
from updates.models import Delivery, Update

pytestmark = pytest.mark.django_db

GPX = "application/gpx+xml"
START = datetime(2026, 1, 15, 5, 0, tzinfo=UTC)


def line(corners, **kwargs) -> dict:
    return {"type": "LineString", "coordinates": path(corners, **kwargs)}


@pytest.fixture
def trails(system) -> dict[str, Trail]:
    """A 2 km trail, another 25 m beside it, a lift along it, one far away, a connector."""
    layout = {
        "Main": ([(0, 0), (2000, 0)], "Standard"),
        "Beside": ([(0, 25), (2000, 25)], "Standard"),
        "Chair": ([(0, -8), (2000, -8)], "Lift"),
        "Far": ([(0, 3000), (2000, 3000)], "Standard"),
        "Connector": ([(1000, 0), (1000, -100)], "Standard"),
    }
    return {
        name: TrailFactory(
            trail_system=system, name=name, type=kind, geometry=line(corners, step=100)
        )
        for name, (corners, kind) in layout.items()
    }


def tracks_url(system) -> str:
    return f"/api/v1/trail-systems/{system.pk}/grooming-tracks"


def grooming_url(system) -> str:
    return f"/api/v1/trail-systems/{system.pk}/grooming"


def post(client, system, body, content_type="application/json", query=""):
    data = body if isinstance(body, bytes) else json.dumps(body)
    return client.generic("POST", tracks_url(system) + query, data, content_type=content_type)


def error(response) -> tuple[int, str, str]:
    body = response.json()["error"]
    return response.status_code, body["code"], body["message"]


def nothing_written(system) -> bool:
    return not (
        GroomingPass.objects.exists()
        or Update.objects.exists()
        or CompileRequest.objects.filter(trail_system=system).exists()
    )


def test_a_track_grooms_the_trail_it_followed_and_nothing_beside_it(system, manager, trails):
    SubscriberFactory(trail_system=system)
    response = post(manager, system, line([(-50, 0), (2050, 0)]))
    assert response.status_code == 201, response.content
    body = response.json()
    assert set(body) == {"trackId", "groomedAt", "trails", "updateIds"}
    assert [t["name"] for t in body["trails"]] == ["Main"]
    assert body["trails"][0] == {
        "trailId": trails["Main"].pk,
        "name": "Main",
        "coverage": pytest.approx(1.0),
    }
    update = Update.objects.get()
    assert body["updateIds"] == [update.pk]
    assert update.type == "surfaceConditions"
    assert update.conditions == ["groomed"]
    assert update.source == "grooming"
    assert update.notify is False
    assert list(update.trails.all()) == [trails["Main"]]
    groomed_at = datetime.fromisoformat(body["groomedAt"])
    assert abs(groomed_at - timezone.now()) < timedelta(minutes=1)
    assert update.expiration_date == groomed_at + timedelta(hours=24)
    assert CompileRequest.objects.filter(trail_system=system).count() == 1
    assert not Delivery.objects.exists()
    grooming_pass = GroomingPass.objects.get(pk=body["trackId"])
    assert grooming_pass.uid == system.owner.pk
    assert grooming_pass.track["type"] == "MultiLineString"


def test_the_published_file_shows_groomed_on_the_trail(
    system, manager, trails, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        post(manager, system, line([(-50, 0), (2050, 0)]))
    system.refresh_from_db()
    with default_storage.open(system.geo_json_path, "rb") as stored:
        features = orjson.loads(stored.read())["features"]
    by_name = {f["properties"]["name"]: f["properties"]["updates"] for f in features}
    [entry] = by_name["Main"]["surfaceConditions"]
    assert [c["value"] for c in entry["conditions"]] == ["groomed"]
    assert set(entry) == {"id", "type", "label", "conditions", "expirationDate", "updatedOn"}
    assert by_name["Beside"] == {}


def test_gpx_with_options_as_query_parameters(system, manager, trails):
    data = gpx([path([(-50, 0), (2050, 0)], step=4)], START)
    response = post(manager, system, data, GPX, "?condition=classicGroomed&toleranceMeters=20")
    assert response.status_code == 201, response.content
    body = response.json()
    last_point = START + timedelta(seconds=525)
    assert body["groomedAt"] == "2026-01-15T05:08:45.000Z"
    update = Update.objects.get()
    assert update.conditions == ["classicGroomed"]
    assert update.expiration_date == last_point + timedelta(hours=24)
    assert GroomingPass.objects.get().tolerance_meters == 20


@pytest.mark.parametrize("content_type", ["application/xml", "text/xml; charset=utf-8"])
def test_gpx_sent_as_generic_xml_is_read(system, manager, trails, content_type):
    data = gpx([path([(-50, 0), (2050, 0)], step=4)], START)
    response = post(manager, system, data, content_type)
    assert response.status_code == 201, response.content
    assert [t["name"] for t in response.json()["trails"]] == ["Main"]


def test_geojson_members_set_the_options(system, manager, trails):
    feature = {
        "type": "Feature",
        "properties": {"name": "Groomer 1"},
        "geometry": line([(-50, 0), (2050, 0)]),
        "condition": "track-set",
        "groomedAt": "2026-01-15T06:30:00Z",
    }
    response = post(manager, system, feature, "application/geo+json")
    assert response.status_code == 201, response.content
    assert response.json()["groomedAt"] == "2026-01-15T06:30:00.000Z"
    assert Update.objects.get().conditions == ["track-set"]


def test_multi_segment_gpx_with_a_time_gap(system, manager, trails):
    """Main, then 40 minutes later Far: both groomed, groomedAt from the last point, and the
    straight line between the segments (across Beside) grooms nothing."""
    first = path([(-50, 0), (2050, 0)], step=4)
    second = path([(2050, 3000), (-50, 3000)], step=4)
    data = gpx([first, second], START, gap=timedelta(minutes=40))
    body = post(manager, system, data, GPX).json()
    assert sorted(t["name"] for t in body["trails"]) == ["Far", "Main"]
    seconds = len(first) + len(second) - 1
    last_point = START + timedelta(minutes=40, seconds=seconds)
    assert datetime.fromisoformat(body["groomedAt"]) == last_point
    assert len(body["updateIds"]) == 2


@pytest.mark.parametrize("fraction, groomed", [(0.09, False), (0.11, True), (0.5, True)])
def test_more_than_ten_percent_grooms(system, manager, trails, fraction, groomed):
    end = fraction * 2000 - 15
    body = post(manager, system, line([(-50, 0), (end, 0)], step=4)).json()
    names = [t["name"] for t in body["trails"]]
    assert ("Main" in names) is groomed
    if groomed:
        assert body["trails"][0]["coverage"] == pytest.approx(fraction, abs=0.003)


def test_lifts_and_short_connectors_at_a_junction_are_not_groomed(system, manager, trails):
    """The track runs 8 m from the lift and over the connector's end: 15 of its 100 m."""
    body = post(manager, system, line([(-50, 0), (2050, 0)])).json()
    assert [t["name"] for t in body["trails"]] == ["Main"]


def test_a_later_pass_replaces_the_grooming_update_and_leaves_others(system, manager, trails):
    manual = UpdateFactory(trail_system=system, type="surfaceConditions", conditions=["icy"])
    manual.trails.set([trails["Main"]])
    first = post(manager, system, line([(-50, 0), (2050, 0)])).json()
    second = post(manager, system, line([(2050, 0), (-50, 0)])).json()
    grooming = Update.objects.filter(source="grooming")
    assert list(grooming.values_list("pk", flat=True)) == second["updateIds"]
    assert not Update.objects.filter(pk__in=first["updateIds"]).exists()
    assert Update.objects.filter(pk=manual.pk).exists()
    assert GroomingPass.objects.count() == 2


def test_a_late_backfill_does_not_replace_a_newer_grooming(system, manager, trails):
    newer = post(manager, system, line([(-50, 0), (2050, 0)])).json()
    older_time = (timezone.now() - timedelta(hours=3)).isoformat()
    older = post(manager, system, {**line([(-50, 0), (2050, 0)]), "groomedAt": older_time})
    assert older.status_code == 201
    assert older.json()["updateIds"] == []
    assert older.json()["trails"][0]["name"] == "Main"
    assert list(Update.objects.values_list("pk", flat=True)) == newer["updateIds"]
    main = manager.get(grooming_url(system)).json()["trails"][0]
    assert main["lastGroomedOn"] == newer["groomedAt"]


def test_dry_run_measures_and_writes_nothing(system, manager, trails):
    response = post(manager, system, {**line([(-50, 0), (2050, 0)]), "dryRun": True})
    assert response.status_code == 200
    body = response.json()
    assert body["trackId"] is None and body["updateIds"] == []
    assert [t["name"] for t in body["trails"]] == ["Main"]
    gpx_body = gpx([path([(-50, 0), (2050, 0)])], START)
    assert post(manager, system, gpx_body, GPX, "?dryRun=true").status_code == 200
    assert nothing_written(system)


@pytest.mark.parametrize(
    "body, content_type, query, code, says",
    [
        (b"<gpx><trk>", GPX, "", "invalid_geometry", "GPX file cannot be read"),
        (b'<gpx version="1.1"></gpx>', GPX, "", "invalid_geometry", "holds no track"),
        (b"", GPX, "", "invalid_geometry", "body is empty"),
        (b"{", "application/json", "", "invalid_json", "not valid JSON"),
        ({"type": "Point", "coordinates": [0, 0]}, "application/json", "", "invalid_geometry",
         "not 'Point'"),
        ({"type": "FeatureCollection", "features": []}, "application/geo+json", "",
         "invalid_geometry", "holds no track"),
        (line([(0, 10000), (2000, 10000)]), "application/json", "", "invalid_geometry",
         "wholly outside"),
        (line([(0, 0), (2000, 0)]), "application/json", "?toleranceMeters=4", "invalid_field",
         "toleranceMeters"),
        ({**line([(0, 0), (2000, 0)]), "toleranceMeters": 51}, "application/json", "",
         "invalid_field", "5 to 50"),
        ({**line([(0, 0), (2000, 0)]), "toleranceMeters": "20"}, "application/json", "",
         "invalid_field", "toleranceMeters"),
        ({**line([(0, 0), (2000, 0)]), "condition": "slushy"}, "application/json", "",
         "invalid_field", "condition"),
        ({**line([(0, 0), (2000, 0)]), "groomedAt": "soon"}, "application/json", "",
         "invalid_date", "groomedAt"),
        ({**line([(0, 0), (2000, 0)]), "groomedAt": "2099-01-01"}, "application/json", "",
         "invalid_field", "future"),
        (b"name=T", "text/csv", "", "invalid_json", "Unsupported media type"),
    ],
    ids=[
        "broken gpx", "gpx without track", "empty gpx", "broken json", "a point",
        "empty collection", "wholly outside", "tolerance 4", "tolerance 51", "tolerance string",
        "unknown condition", "unreadable date", "future date", "other content type",
    ],
)  # fmt: skip
def test_bad_uploads_say_why_and_write_nothing(
    system, manager, trails, body, content_type, query, code, says
):
    status, got_code, message = error(post(manager, system, body, content_type, query))
    assert (status, got_code) == (400, code), message
    assert says in message
    assert nothing_written(system)


def test_a_track_near_the_system_that_grooms_nothing_is_kept(system, manager, trails):
    """A crossing is not a grooming, but the pass is real: kept, with no update, no compile."""
    body = post(manager, system, line([(500, -300), (500, 300)])).json()
    assert body["trails"] == [] and body["updateIds"] == []
    assert GroomingPass.objects.filter(pk=body["trackId"]).exists()
    assert not CompileRequest.objects.filter(trail_system=system).exists()


def test_last_groomed_per_trail_and_passes_newest_first(system, manager, trails, client_for):
    empty = manager.get(grooming_url(system)).json()
    assert empty == {"trailSystemId": system.pk, "trails": [], "tracks": []}
    early = (timezone.now() - timedelta(hours=5)).isoformat()
    post(manager, system, {**line([(-50, 0), (2050, 0)]), "groomedAt": early})
    both = {
        "type": "MultiLineString",
        "coordinates": [path([(-50, 0), (2050, 0)]), path([(-50, 3000), (2050, 3000)])],
    }
    latest = post(manager, system, {**both, "condition": "skateGroomed"}).json()
    Trail.objects.filter(pk=trails["Far"].pk).update(trashed_on=timezone.now())
    body = manager.get(grooming_url(system)).json()
    assert body["trails"] == [
        {
            "trailId": trails["Main"].pk,
            "name": "Main",
            "lastGroomedOn": latest["groomedAt"],
            "condition": "skateGroomed",
            "lastGroomed": latest["groomedAt"],
            "groomedToday": True,
        }
    ]
    assert [t["trailCount"] for t in body["tracks"]] == [2, 1]
    assert body["tracks"][0] == {
        "trackId": latest["trackId"],
        "groomedAt": latest["groomedAt"],
        "uid": system.owner.pk,
        "trailCount": 2,
    }


def test_at_most_100_passes_are_listed(system, manager, trails):
    passes = GroomingPass.objects.bulk_create(
        GroomingPass(
            trail_system=system,
            groomed_at=START + timedelta(minutes=i),
            uid="groomer",
            condition="groomed",
            tolerance_meters=15,
            track={},
        )
        for i in range(101)
    )
    listed = manager.get(grooming_url(system)).json()["tracks"]
    assert len(listed) == 100
    assert listed[0]["trackId"] == passes[-1].pk
    assert GroomedTrail.objects.count() == 0


def test_a_grooming_update_widened_by_hand_keeps_its_other_trails(system, manager, trails):
    first = post(manager, system, line([(-50, 0), (2050, 0)])).json()
    widened = Update.objects.get(pk=first["updateIds"][0])
    widened.trails.add(trails["Far"])
    second = post(manager, system, line([(2050, 0), (-50, 0)])).json()
    assert list(widened.trails.all()) == [trails["Far"]]
    assert set(Update.objects.values_list("pk", flat=True)) == {widened.pk, *second["updateIds"]}


def test_a_pass_writes_in_the_same_number_of_queries_for_one_trail_or_three(
    system, manager, trails
):
    def queries(corners) -> int:
        track = {"type": "MultiLineString", "coordinates": [path(c) for c in corners]}
        post(manager, system, track)  # a previous grooming update to replace
        with CaptureQueriesContext(connection) as captured:
            assert post(manager, system, track).status_code == 201
        return len(captured)

    one = queries([[(-50, 0), (2050, 0)]])
    three = queries([[(-50, 0), (2050, 0)], [(-50, 3000), (2050, 3000)], [(-50, 25), (2050, 25)]])
    assert one == three


def test_each_groomed_trail_is_recorded_in_the_status_history(system, key_client_for, trails):
    client = key_client_for(system.owner)
    early = (timezone.now() - timedelta(hours=5)).isoformat()
    first = post(client, system, {**line([(-50, 0), (2050, 0)]), "groomedAt": early}).json()
    second = post(client, system, line([(-50, 0), (2050, 0)])).json()
    history = client.get(f"/api/v1/trails/{trails['Main'].pk}/history").json()["history"]
    assert [(e["via"], e["field"], e["from"], e["to"], e["uid"]) for e in history] == [
        ("grooming", "groomed", first["groomedAt"], second["groomedAt"], system.owner.pk),
        ("grooming", "groomed", None, first["groomedAt"], system.owner.pk),
    ]
    beside = client.get(f"/api/v1/trails/{trails['Beside'].pk}/history").json()["history"]
    assert beside == []


def test_a_pass_is_read_back_with_its_track_and_coverage(system, manager, trails):
    body = post(manager, system, line([(-50, 0), (2050, 0)])).json()
    grooming_pass = selectors.grooming_pass(body["trackId"])
    assert grooming_pass.track["coordinates"][0][0] == pytest.approx(path([(-50, 0)])[0])
    [groomed] = grooming_pass.groomed_trails.all()
    assert (groomed.trail.name, groomed.coverage, groomed.update_id) == (
        "Main",
        body["trails"][0]["coverage"],
        body["updateIds"][0],
    )
    by_trail = selectors.last_groomed_by_trail(system.pk)
    assert (
        by_trail[trails["Main"].pk].last_groomed_on.isoformat().startswith(body["groomedAt"][:19])
    )
    assert selectors.grooming_pass("nope") is None


def test_geojson_from_a_gpx_converter_is_groomed_at_its_last_time(system, manager, trails):
    coordinates = path([(-50, 0), (2050, 0)], step=100)
    times = [f"2026-01-15T05:{minute:02d}:00Z" for minute in range(len(coordinates))]
    feature = {
        "type": "Feature",
        "properties": {"coordinateProperties": {"times": times}},
        "geometry": {"type": "LineString", "coordinates": coordinates},
    }
    body = post(manager, system, feature, "application/geo+json").json()
    assert body["groomedAt"] == f"2026-01-15T05:{len(coordinates) - 1:02d}:00.000Z"


def test_groomed_today_is_the_date_in_the_systems_zone(system, manager, trails):
    """Groomed a minute before local midnight is yesterday's grooming, though it may be
    today's date in UTC; a minute after it is today's."""
    system.time_zone = "Pacific/Kiritimati"  # UTC+14: local and UTC dates differ all day long
    system.save(update_fields=["time_zone"])
    zone = ZoneInfo(system.time_zone)
    midnight = timezone.now().astimezone(zone).replace(hour=0, minute=0, second=0, microsecond=0)
    post(
        manager,
        system,
        {**line([(-50, 0), (2050, 0)]), "groomedAt": (midnight - timedelta(minutes=1)).isoformat()},
    )
    post(
        manager,
        system,
        {
            **line([(-50, 25), (2050, 25)]),
            "groomedAt": (midnight + timedelta(minutes=1)).isoformat(),
        },
    )
    body = manager.get(grooming_url(system)).json()
    today = {trail["name"]: trail["groomedToday"] for trail in body["trails"]}
    assert today == {"Main": False, "Beside": True}
