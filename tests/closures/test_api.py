"""Closures of stretches of a trail through the management API: the stretch snapped onto the
line, the lists, reopening, planned closures started and ended by the schedules' pass, the
closures file written with each closure (no compile), and bad input refused with nothing stored."""

import json
import time
from datetime import timedelta

import orjson
import pytest
from django.core.files.storage import default_storage
from django.db import transaction
from django.test import Client
from django.utils import timezone
from pyproj import Geod

from closures.models import Closure
from core.actors import Actor, Via
from publishing.compile import compile_rows
from publishing.scheduling import record_compile_request
from publishing.selectors import load_system_rows
from schedules.services import apply_due_schedules
from tests.config.api_surface import assert_envelope
from tests.factories import MembershipFactory, TrailActivityFactory, TrailFactory
from tests.grooming.geo import at, path
from trails.models import StatusChange
from webhooks.models import WebhookMessage
from webhooks.services import create_endpoint

pytestmark = pytest.mark.django_db

ELLIPSOID = Geod(ellps="WGS84")
LENGTH = 3000.0  # metres of the demo trail, running east from the origin


@pytest.fixture
def trail(system):
    trail = TrailFactory(
        trail_system=system,
        name="Ridge Loop",
        geometry={"type": "LineString", "coordinates": path([(0, 0), (LENGTH, 0)], step=50)},
    )
    TrailActivityFactory(trail=trail, value="skiing")
    TrailActivityFactory(trail=trail, value="snowshoeing")
    return trail


@pytest.fixture
def compiles(django_capture_on_commit_callbacks):
    """Run what the writes queued after their commit (the compile among it)."""
    return lambda: django_capture_on_commit_callbacks(execute=True)


def place(east: float, north: float = 0.0) -> dict:
    lng, lat = at(east, north)
    return {"lat": lat, "lng": lng}


def metres(a: list[float], b: dict) -> float:
    return ELLIPSOID.inv(a[0], a[1], b["lng"], b["lat"])[2]


def close(client, trail, **body):
    return client.post(
        f"/api/v1/trails/{trail.pk}/closures",
        {"reason": "avalancheControl", **body},
        format="json",
    )


def wait_until(moment) -> None:
    """The compile reads the real clock: the test lets the time come."""
    time.sleep(max((moment - timezone.now()).total_seconds(), 0) + 0.05)


def closures_file(system) -> dict:
    response = Client().get(f"/feeds/{system.pk}/closures.geojson")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/geo+json"
    return orjson.loads(response.content)


def test_a_trustee_closes_the_middle_kilometre_by_two_places_beside_the_line(
    system, trail, client_for, compiles
):
    trustee = MembershipFactory(trail_system=system, role="Trustee").user
    ends_at = timezone.now() + timedelta(hours=3)
    with compiles():
        response = close(
            client_for(trustee),
            trail,
            **{"from": place(1000, 20), "to": place(2000, -15)},
            endsAt=ends_at.isoformat(),
            note="Control work on the ridge",
            detour="Take the valley road",
        )
    assert response.status_code == 201, response.content
    closure = response.json()
    assert closure["fromMeters"] == pytest.approx(1000, abs=1)
    assert closure["toMeters"] == pytest.approx(2000, abs=1)
    assert closure["lengthMeters"] == pytest.approx(1000, abs=1)
    assert closure["active"] is True and closure["wholeTrail"] is False
    assert closure["activities"] == [] and closure["trailName"] == "Ridge Loop"
    line = closure["geometry"]
    assert line["type"] == "LineString"
    assert metres(line["coordinates"][0], place(1000)) < 1
    assert metres(line["coordinates"][-1], place(2000)) < 1

    listed = client_for(system.owner).get(f"/api/v1/trail-systems/{system.pk}/closures").json()
    assert [c["id"] for c in listed["closures"]] == [closure["id"]]

    feature = closures_file(system)["features"][0]
    assert feature["geometry"] == line
    assert {
        key: feature["properties"][key]
        for key in ("trailId", "activities", "reason", "note", "detour", "lengthMeters")
    } == {
        "trailId": trail.pk,
        "activities": [],
        "reason": "avalancheControl",
        "note": "Control work on the ridge",
        "detour": "Take the valley road",
        "lengthMeters": closure["lengthMeters"],
    }
    assert feature["properties"]["endsAt"] == closure["endsAt"]
    assert feature["properties"]["reasonText"] == "Avalanche control"


def test_to_before_from_closes_the_stretch_between_them(system, trail, manager):
    closure = close(
        manager, trail, **{"from": place(2000), "to": place(1000)}, activities=["skiing"]
    ).json()
    assert (closure["fromMeters"], closure["toMeters"]) == (
        pytest.approx(1000, abs=1),
        pytest.approx(2000, abs=1),
    )
    assert closure["activities"] == ["skiing"]


def test_distances_along_the_line_and_the_whole_trail(system, trail, manager):
    by_metres = close(manager, trail, fromMeters=500, toMeters=750).json()
    assert by_metres["lengthMeters"] == pytest.approx(250, abs=0.2)
    whole = close(manager, trail, reason="fallenTree").json()
    assert whole["wholeTrail"] is True
    assert whole["fromMeters"] == 0 and whole["toMeters"] == pytest.approx(LENGTH, abs=1)
    trail.refresh_from_db()
    assert trail.status == "Open"  # a closure is a stretch; the trail's own status stands


def test_the_published_file_and_the_legacy_documents_stay_as_they_were(
    system, trail, manager, compiles
):
    now = timezone.now()
    before = compile_rows(load_system_rows(system.pk, now), now).body
    with compiles(), transaction.atomic():
        record_compile_request(system, reason="test")
    system.refresh_from_db()
    published = system.geo_json_path
    with compiles():
        assert close(manager, trail, fromMeters=100, toMeters=900).status_code == 201
        assert close(manager, trail).status_code == 201
    assert len(closures_file(system)["features"]) == 2
    assert compile_rows(load_system_rows(system.pk, now), now).body == before
    system.refresh_from_db()
    assert system.geo_json_path == published  # no compile: the same file stays published
    with default_storage.open(system.geo_json_path, "rb") as stored:
        assert b"closure" not in stored.read().lower()

    legacy = Client()
    documents = [
        f"/legacy/ts/{system.pk}",
        f"/legacy/trails/{system.pk}",
        f"/legacy/trail/{trail.pk}",
    ]
    with_closures = [legacy.get(url).content for url in documents]
    Closure.objects.all().delete()
    assert [legacy.get(url).content for url in documents] == with_closures


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"from": place(1500, 200)}, "from"),
        ({"from": place(500), "to": place(1500, -200)}, "to"),
        ({"reason": "avalanche"}, "reason"),
        ({"fromMeters": 99_999}, "fromMeters"),
        ({"activities": ["biking"]}, "activities"),
        ({"from": place(100), "fromMeters": 100}, "fromMeters"),
        ({"detourGeometry": {"type": "Point", "coordinates": [0, 0]}}, "detourGeometry"),
    ],
)
def test_bad_input_is_refused_naming_the_field_and_nothing_is_stored(
    system, trail, manager, body, field
):
    response = close(manager, trail, **body)
    error = assert_envelope(response, 400)
    assert error["message"].startswith(f"{field}:"), error
    assert not Closure.objects.exists()


def test_an_end_before_the_start_is_refused_naming_ends_at(system, trail, manager):
    starts = timezone.now() + timedelta(hours=2)
    response = close(
        manager,
        trail,
        startsAt=starts.isoformat(),
        endsAt=(starts - timedelta(minutes=1)).isoformat(),
    )
    assert assert_envelope(response, 400)["message"].startswith("endsAt:")
    assert not Closure.objects.exists()


def test_a_stranger_may_not_close_a_trail(system, trail, client_for):
    from tests.factories import UserFactory

    response = close(client_for(UserFactory()), trail)
    assert response.status_code == 403
    assert not Closure.objects.exists()


def test_a_planned_closure_starts_and_ends_by_itself_with_the_schedules_pass(
    system, trail, manager, compiles
):
    actor = Actor(system.owner.uid, Via.WEB_APP)
    create_endpoint(
        system=system,
        url="https://hooks.example.org/a",
        events=["closure.started", "closure.ended"],
        actor=actor,
    )
    # The compile reads the real clock, so the test lets the times come (with room for a
    # slow machine between the writes).
    starts = timezone.now() + timedelta(seconds=10)
    ends = starts + timedelta(seconds=5)
    with compiles():
        planned = close(
            manager,
            trail,
            fromMeters=1000,
            toMeters=2000,
            startsAt=starts.isoformat(),
            endsAt=ends.isoformat(),
        ).json()
    assert planned.get("active") is False, planned
    assert closures_file(system)["features"] == []

    wait_until(starts)
    with compiles():
        assert apply_due_schedules() == 1
    assert [f["id"] for f in closures_file(system)["features"]] == [planned["id"]]

    wait_until(ends)
    with compiles():
        assert apply_due_schedules() == 1
    assert closures_file(system)["features"] == []
    listed = manager.get(f"/api/v1/trail-systems/{system.pk}/closures").json()["closures"]
    assert listed == []
    ended = manager.get(f"/api/v1/trail-systems/{system.pk}/closures?all=true").json()
    assert [c["id"] for c in ended["closures"]] == [planned["id"]]
    assert ended["closures"][0]["endedOn"] == planned["endsAt"]

    changes = StatusChange.objects.filter(trail=trail, field="closure").order_by("at")
    assert [(c.old_value, c.new_value, c.via) for c in changes] == [
        (None, "avalancheControl", "schedule"),
        ("avalancheControl", None, "schedule"),
    ]
    messages = WebhookMessage.objects.order_by("created_on", "id")
    assert [m.type for m in messages] == ["closure.started", "closure.ended"]
    data = json.loads(messages[0].payload)["data"]
    assert data["closureId"] == planned["id"] and data["trailId"] == trail.pk
    # As docs/developers/webhooks.md names them, camel-cased as every other key of the data.
    assert (data["fromMeters"], data["toMeters"]) == (planned["fromMeters"], planned["toMeters"])


def test_reopening_ends_the_closure_now_and_keeps_it(system, trail, manager, compiles):
    with compiles():
        closure = close(manager, trail, fromMeters=0, toMeters=400).json()
    with compiles():
        reopened = manager.delete(f"/api/v1/closures/{closure['id']}")
    assert reopened.status_code == 200
    assert reopened.json()["active"] is False and reopened.json()["endedOn"]
    assert closures_file(system)["features"] == []
    assert manager.get(f"/api/v1/closures/{closure['id']}").json()["active"] is False
    changes = StatusChange.objects.filter(trail=trail, field="closure").order_by("at")
    assert [(c.new_value, c.via, c.uid) for c in changes] == [
        ("avalancheControl", "id-token", system.owner.uid),
        (None, "id-token", system.owner.uid),
    ]


def test_a_change_moves_the_stretch_and_an_ended_closure_stays_as_it_ended(system, trail, manager):
    closure = close(manager, trail, fromMeters=0, toMeters=400).json()
    url = f"/api/v1/closures/{closure['id']}"
    changed = manager.patch(url, {"toMeters": 800, "reason": "mud"}, format="json").json()
    assert changed["lengthMeters"] == pytest.approx(800, abs=0.2)
    assert changed["reason"] == "mud"
    manager.delete(url)
    assert_envelope(manager.patch(url, {"note": "x"}, format="json"), 409, "closure_ended")


def test_the_trail_system_names_its_closures_file(system, manager, settings):
    body = manager.get(f"/api/v1/trail-systems/{system.pk}").json()
    assert body["closuresUrl"] == f"{settings.PUBLIC_BASE_URL}/feeds/{system.pk}/closures.geojson"


def test_a_closure_is_in_its_file_when_the_write_answers_and_asks_for_no_compile(
    system, trail, manager
):
    with transaction.atomic():
        record_compile_request(system, reason="baseline")
    before = Client().get(f"/feeds/{system.pk}/closures.geojson")
    closure = close(manager, trail, fromMeters=0, toMeters=400).json()
    after = Client().get(f"/feeds/{system.pk}/closures.geojson")
    assert [f["id"] for f in orjson.loads(after.content)["features"]] == [closure["id"]]
    assert before["ETag"] != after["ETag"]
    assert not system.compile_requests.filter(reason="closure").exists()
    manager.delete(f"/api/v1/closures/{closure['id']}")
    reopened = Client().get(f"/feeds/{system.pk}/closures.geojson")
    assert orjson.loads(reopened.content)["features"] == []
    assert reopened["ETag"] == before["ETag"]
