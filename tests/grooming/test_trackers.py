"""Trackers: the API that makes and revokes them, and the positions they post (/track/...)
becoming a grooming pass while the machine grooms."""

import json
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone

from core.actors import Actor, Via
from grooming.models import GroomingPass, GroomingSession, Tracker, TrackerPosition
from grooming.services import record_grooming_track
from grooming.sessions import measure_session, sweep_sessions
from grooming.tracks import parse_gpx
from public import tracking
from publishing.models import CompileRequest
from tests.factories import TrailFactory
from tests.grooming.geo import at, path
from tests.grooming.replay import (
    IDLE,
    as_gpx,
    big_loop,
    blue_hills_system,
    replay,
    send_osmand_query,
    send_owntracks,
    send_traccar_json,
    set_up_before,
)
from updates.models import Update
from webhooks.models import WebhookMessage
from webhooks.services import create_endpoint

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_requests_counted():
    """The rate limits count in the shared cache: every test starts at zero."""
    cache.clear()


@pytest.fixture
def blue_hills(system):
    return blue_hills_system(system.owner)


def create(manager, system, **body) -> dict:
    """A tracker set up the day before (the replayed tracks' positions are hours old)."""
    response = manager.post(
        f"/api/v1/trail-systems/{system.pk}/trackers", {"name": "PistenBully 1", **body}, "json"
    )
    assert response.status_code == 201, response.content
    created = response.json()
    set_up_before(created["id"], [(0, 0, timezone.now() - timedelta(days=1))])
    return created


def groomed_names(manager, system) -> dict[str, dict]:
    document = manager.get(f"/api/v1/trail-systems/{system.pk}/grooming").json()
    return {trail["trailId"]: trail for trail in document["trails"]}


def test_a_tracker_is_made_with_its_secret_once_listed_without_it_and_revoked(
    client, manager, system
):
    created = create(manager, system, condition="classicGroomed")
    secret = created["secret"]
    assert secret.startswith("trk_") and len(secret) >= 32
    assert created["prefix"] == secret[:10]
    assert created["condition"] == "classicGroomed"
    assert created["trackingUrl"].endswith(f"/track/osmand?id={secret}")
    assert "lat={0}&lon={1}&timestamp={2}" in created["urlTemplates"]["osmand"]
    assert "lat=%LAT&lon=%LON" in created["urlTemplates"]["gpslogger"]
    assert created["owntracksUrl"].endswith("/track/owntracks")

    listed = manager.get(f"/api/v1/trail-systems/{system.pk}/trackers")
    assert listed.status_code == 200
    (row,) = listed.json()["trackers"]
    assert row["id"] == created["id"] and row["lastPositionOn"] is None
    assert secret not in listed.content.decode()

    revoked = manager.delete(f"/api/v1/trackers/{created['id']}")
    assert revoked.json() == {"ok": True, "id": created["id"], "revoked": True}
    assert manager.get(f"/api/v1/trail-systems/{system.pk}/trackers").json()["trackers"] == []
    assert manager.delete(f"/api/v1/trackers/{created['id']}").status_code == 404
    assert (
        client.get("/track/osmand", {"id": secret, "lat": 45.69, "lon": -113.95}).status_code == 403
    )


def test_bad_tracker_bodies_are_refused_clearly(manager, system):
    url = f"/api/v1/trail-systems/{system.pk}/trackers"
    assert manager.post(url, {}, "json").status_code == 400
    refused = manager.post(url, {"name": "PB", "condition": "slush soup"}, "json")
    assert refused.status_code == 400
    assert refused.json()["error"]["code"] == "invalid_field"


def test_a_real_track_in_three_protocols_grooms_its_trails_before_the_session_ends(
    client, manager, system, blue_hills, django_capture_on_commit_callbacks
):
    """BIG LOOP replayed as it happens (OsmAnd query, then Traccar Client JSON, then
    OwnTracks): the trails it covers are groomed while the session runs, and the ended
    session is the pass the upload of the same track makes."""
    created = create(manager, blue_hills)
    points = big_loop()
    with django_capture_on_commit_callbacks(execute=True):
        statuses = replay(client, created["secret"], points)
    assert set(statuses) == {200}
    session = GroomingSession.objects.get()
    assert session.ended_on is None
    upload = record_grooming_track(
        system=blue_hills,
        track=parse_gpx(as_gpx(points)),
        actor=Actor("someone", Via.ID_TOKEN),
        dry_run=True,
    )
    expected = {trail.trail_id for trail in upload.trails}
    assert len(expected) >= 3
    groomed = groomed_names(manager, blue_hills)
    assert set(groomed) == expected  # marked while the machine was still out
    assert {trail["condition"] for trail in groomed.values()} == {"groomed"}
    listed = manager.get(f"/api/v1/trail-systems/{blue_hills.pk}/trackers").json()["trackers"]
    assert listed[0]["groomingNow"] is True and listed[0]["lastPositionOn"]

    # The Atom feed tells the grooming while the machine is still out.
    running_pass = GroomingSession.objects.get().grooming_pass_id
    assert f"grooming-{running_pass}" in client.get(f"/feeds/{blue_hills.pk}.atom").content.decode()

    with django_capture_on_commit_callbacks(execute=True):
        assert sweep_sessions(now=timezone.now() + IDLE) == 1
    grooming_pass = GroomingPass.objects.get()
    assert grooming_pass.groomed_at == upload.groomed_at
    assert {(g.trail_id, g.coverage) for g in grooming_pass.groomed_trails.all()} == {
        (trail.trail_id, trail.coverage) for trail in upload.trails
    }
    assert all(
        update.expiration_date == upload.shows_until
        for update in Update.objects.filter(grooming__grooming_pass=grooming_pass)
    )


def test_a_revoked_tracker_changes_nothing_and_other_systems_are_never_touched(
    client, manager, system, blue_hills, django_capture_on_commit_callbacks
):
    """System B lies on the same ground as system A: A's tracker grooms A's trails only."""
    other = blue_hills_system(system.owner, name="Blue Hills B")
    tracker_a = create(manager, blue_hills)
    tracker_b = create(manager, other)
    points = big_loop()
    with django_capture_on_commit_callbacks(execute=True):
        replay(client, tracker_a["secret"], points[:200])
    assert groomed_names(manager, blue_hills)
    assert groomed_names(manager, other) == {}
    assert not Tracker.objects.get(pk=tracker_b["id"]).last_position_on

    manager.delete(f"/api/v1/trackers/{tracker_a['id']}")
    session = GroomingSession.objects.get()
    assert session.ended_on is not None  # revoking ends the session at once
    stored = TrackerPosition.objects.count()
    before = groomed_names(manager, blue_hills)
    for send in (send_osmand_query, send_traccar_json, send_owntracks):
        assert send(client, tracker_a["secret"], points[250]).status_code == 403
    assert TrackerPosition.objects.count() == stored
    assert groomed_names(manager, blue_hills) == before
    assert GroomingSession.objects.count() == 1


def test_implausible_positions_are_counted_and_dropped(client, manager, system):
    created = create(manager, system)
    now = timezone.now()
    good = (-113.95, 45.69, now - timedelta(seconds=30))
    assert send_osmand_query(client, created["secret"], good).status_code == 200
    secret = created["secret"]
    for query in (
        {"lat": 45.6901, "lon": -113.95, "timestamp": int(good[2].timestamp()) + 0},  # < 1 s
        {"lat": 45.6902, "lon": -113.95, "timestamp": int((now + timedelta(hours=1)).timestamp())},
        {"lat": 46.5, "lon": -113.95},  # 90 km away
        {"lat": 45.6903, "lon": -113.95, "accuracy": 120},
        {"lat": 45.6904, "lon": -113.95, "hdop": 80},
    ):
        assert client.get("/track/osmand", {"id": secret, **query}).status_code == 200
    tracker = Tracker.objects.get()
    assert tracker.dropped_positions == 5
    assert TrackerPosition.objects.count() == 1


@pytest.mark.parametrize(
    ("query", "reason"),
    [
        ({"lat": "north", "lon": -113.95}, "lat: not a number"),
        ({"lat": 95, "lon": -113.95}, "lat: must be from -90 to 90"),
        ({"lon": -113.95}, "lat and lon are required"),
        ({"lat": 45.69, "lon": -113.95, "timestamp": "soon"}, "is not a time"),
    ],
)
def test_a_malformed_position_is_400_with_its_reason(client, manager, system, query, reason):
    secret = create(manager, system)["secret"]
    response = client.get("/track/osmand", {"id": secret, **query})
    assert response.status_code == 400
    assert reason in response.content.decode()
    assert not TrackerPosition.objects.exists()


def test_secrets_missing_unknown_and_bodies_unreadable(client, manager, system):
    secret = create(manager, system)["secret"]
    assert client.get("/track/osmand", {"lat": 45.69, "lon": -113.95}).status_code == 400
    unknown = client.get("/track/osmand", {"id": "trk_" + "x" * 32, "lat": 45.69, "lon": -113.9})
    assert unknown.status_code == 403
    not_json = client.post(f"/track/osmand?id={secret}", "{", content_type="application/json")
    assert not_json.status_code == 400
    no_password = client.post("/track/owntracks", "{}", content_type="application/json")
    assert no_password.status_code == 401
    huge = json.dumps({"location": {"coords": {}}, "pad": "x" * tracking.MAX_BODY_BYTES})
    too_big = client.post(f"/track/osmand?id={secret}", huge, content_type="application/json")
    assert too_big.status_code == 413
    # Traccar Client puts its own device identifier after the URL's id: either may be it.
    both = client.get(f"/track/osmand?id={secret}&id=phone-7&lat=45.69&lon=-113.95")
    assert both.status_code == 200
    # OwnTracks' other messages are answered and ignored.
    assert send_owntracks(client, secret, (-113.95, 45.69, timezone.now())).status_code == 200


def test_a_known_tracker_has_its_own_rate_whatever_its_address_and_junk_is_bounded_per_address(
    client, manager, system, monkeypatch
):
    """Issue 40 item 3: the secret is checked first. A fleet behind one NAT is bounded only
    per tracker; only requests without a known secret count toward the address's bound."""
    monkeypatch.setattr(tracking, "REQUESTS_PER_TRACKER", 3)
    monkeypatch.setattr(tracking, "UNKNOWN_PER_ADDRESS", 2)
    nat = "203.0.113.50"
    unknown = {"id": "trk_unknown", "lat": 45.69, "lon": -113.95}
    junk = [client.get("/track/osmand", unknown, REMOTE_ADDR=nat).status_code for _ in range(3)]
    assert junk == [403, 403, 429]
    assert client.get("/track/osmand", {"lat": 45.69}, REMOTE_ADDR=nat).status_code == 429

    secrets = [create(manager, system, name=f"PistenBully {n}")["secret"] for n in range(4)]
    for secret in secrets:  # the address spent its bound: each tracker has its own rate
        query = {"id": secret, "lat": 45.69, "lon": -113.95}
        statuses = [
            client.get("/track/osmand", query, REMOTE_ADDR=nat).status_code for _ in range(4)
        ]
        assert statuses == [200, 200, 200, 429]
    assert client.get("/track/osmand", unknown, REMOTE_ADDR="10.9.9.9").status_code == 403


def test_sessions_announce_start_each_trail_and_end(
    client, manager, system, blue_hills, django_capture_on_commit_callbacks
):
    create_endpoint(
        system=blue_hills,
        url="https://hooks.example.org/groomers",
        events=["grooming.started", "trail.groomed", "grooming.ended", "grooming.recorded"],
        actor=Actor(system.owner.uid, Via.WEB_APP),
    )
    created = create(manager, blue_hills)
    with django_capture_on_commit_callbacks(execute=True):
        replay(client, created["secret"], big_loop())
        sweep_sessions(now=timezone.now() + IDLE)
    types = list(WebhookMessage.objects.order_by("created_on", "id").values_list("type", flat=True))
    groomed = GroomingPass.objects.get().groomed_trails.count()
    assert types[0] == "grooming.started"
    assert types.count("trail.groomed") == groomed
    assert types[-2:] == ["grooming.ended", "grooming.recorded"]


def test_a_gap_of_15_minutes_starts_a_new_session(client, manager, system):
    TrailFactory(trail_system=system)
    secret = create(manager, system)["secret"]
    start = timezone.now() - timedelta(hours=1)
    for i, minutes in enumerate((0, 5, 21)):
        moment = start + timedelta(minutes=minutes)
        send_osmand_query(client, secret, (-113.95 + i * 0.001, 45.69 + i * 0.001, moment))
    sessions = list(GroomingSession.objects.order_by("started_at"))
    assert len(sessions) == 2
    assert sessions[0].ended_on is not None and sessions[1].ended_on is None


def test_a_running_session_compiles_when_it_grooms_a_trail_not_at_each_measurement(
    client, manager, system, django_capture_on_commit_callbacks
):
    """Driving on along a trail already groomed is measured (the pass grows) but publishes
    nothing new, so it asks no compile; the end sets the updates' expiry and compiles once."""
    trail = TrailFactory(
        trail_system=system,
        geometry={"type": "LineString", "coordinates": path([(0, 0), (400, 0)])},
    )
    secret = create(manager, system)["secret"]
    start = timezone.now().replace(microsecond=0) - timedelta(seconds=100)  # sent in seconds
    for second in range(100):
        moment = start + timedelta(seconds=second)
        east = second * 5.0 if second <= 80 else 400 - (second - 80) * 5.0
        assert send_osmand_query(client, secret, (*at(east, 0), moment)).status_code == 200
    session = GroomingSession.objects.get()
    with django_capture_on_commit_callbacks(execute=True):
        measure_session(session_id=session.pk)
    assert set(groomed_names(manager, system)) == {trail.pk}
    compiles = CompileRequest.objects.filter(trail_system=system).count()

    for second in range(100, 130):  # back along the same trail
        moment = start + timedelta(seconds=second)
        send_osmand_query(client, secret, (*at(400 - (second - 80) * 5.0, 0), moment))
    with django_capture_on_commit_callbacks(execute=True):
        measure_session(session_id=session.pk)
    grooming_pass = GroomingPass.objects.get()
    assert grooming_pass.groomed_at == start + timedelta(seconds=129)
    assert CompileRequest.objects.filter(trail_system=system).count() == compiles

    with django_capture_on_commit_callbacks(execute=True):
        assert sweep_sessions(now=timezone.now() + IDLE) == 1
    assert CompileRequest.objects.filter(trail_system=system).count() == compiles + 1
    (update,) = Update.objects.filter(grooming__grooming_pass=grooming_pass)
    assert update.expiration_date == grooming_pass.groomed_at + timedelta(hours=24)


def traccar_batch(client, secret: str, points) -> int:
    """One Traccar Client request of several positions (lng, lat, time)."""
    body = {
        "device_id": secret,
        "location": [
            {
                "timestamp": moment.isoformat().replace("+00:00", "Z"),
                "coords": {"latitude": lat, "longitude": lng, "accuracy": 5},
            }
            for lng, lat, moment in points
        ],
    }
    return client.post("/track/osmand", json.dumps(body), content_type="application/json")


def test_positions_jumping_between_trails_faster_than_a_groomer_are_dropped(
    client, manager, system
):
    """The attack pass: four requests whose positions ran 300 m along each of nine trails a
    kilometre apart, a second from one trail to the next, marked 8 of 9 trails groomed. A
    groomer drives at most 25 m/s: only the trail it really drove is groomed."""
    trails = [
        TrailFactory(
            trail_system=system,
            geometry={"type": "LineString", "coordinates": path([(0, n * 1000), (300, n * 1000)])},
        )
        for n in range(9)
    ]
    secret = create(manager, system)["secret"]
    start = timezone.now().replace(microsecond=0) - timedelta(minutes=5)
    points = [
        (*at(east, n * 1000), start + timedelta(seconds=n * 16 + step))
        for n in range(9)
        for step, east in enumerate(range(0, 320, 20))
    ]
    for first in range(0, len(points), 36):
        assert traccar_batch(client, secret, points[first : first + 36]).status_code == 200
    measure_session(session_id=GroomingSession.objects.get().pk)
    assert set(groomed_names(manager, system)) == {trails[0].pk}
    tracker = Tracker.objects.get()
    assert tracker.dropped_positions == 8 * 16
    assert TrackerPosition.objects.count() == 16


def test_positions_from_before_the_tracker_existed_are_dropped(client, manager, system):
    response = manager.post(
        f"/api/v1/trail-systems/{system.pk}/trackers", {"name": "PistenBully 2"}, "json"
    )
    secret = response.json()["secret"]
    now = timezone.now()
    last_week = (-113.95, 45.69, now - timedelta(days=7))
    assert send_osmand_query(client, secret, last_week).status_code == 200
    assert not GroomingSession.objects.exists()
    assert Tracker.objects.get().dropped_positions == 1
    assert send_osmand_query(client, secret, (-113.95, 45.69, now)).status_code == 200
    assert TrackerPosition.objects.count() == 1


def test_a_request_replayed_after_its_session_ended_makes_no_second_pass(
    client, manager, system, django_capture_on_commit_callbacks
):
    trail = TrailFactory(
        trail_system=system,
        geometry={"type": "LineString", "coordinates": path([(0, 0), (400, 0)])},
    )
    secret = create(manager, system)["secret"]
    start = timezone.now().replace(microsecond=0) - timedelta(minutes=30)
    points = [(*at(second * 5.0, 0), start + timedelta(seconds=second)) for second in range(81)]
    assert traccar_batch(client, secret, points).status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        assert sweep_sessions(now=timezone.now() + IDLE) == 1
    assert set(groomed_names(manager, system)) == {trail.pk}
    updates = Update.objects.count()

    assert traccar_batch(client, secret, points).status_code == 200  # the same request again
    assert GroomingPass.objects.count() == 1
    assert not GroomingSession.objects.filter(ended_on__isnull=True).exists()
    assert Update.objects.count() == updates
    assert Tracker.objects.get().dropped_positions == len(points)
