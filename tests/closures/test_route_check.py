"""The route check: a GPX route over a closed stretch and along a Closed trail lists both with
the lengths it runs on them; one 40 m beside them lists neither; a route too large or too
long is refused. The API's route (with a key) and the public one answer alike."""

from datetime import UTC, datetime

import orjson
import pytest
from django.test import Client

from closures.services import create_closure
from core.actors import Actor, Via
from tests.factories import TrailFactory
from tests.grooming.geo import gpx, path

pytestmark = pytest.mark.django_db

PATROL = Actor("patrol-uid", Via.API_KEY)
START = datetime(2026, 12, 1, 9, tzinfo=UTC)


@pytest.fixture
def world(system):
    ridge = TrailFactory(
        trail_system=system,
        name="Ridge Loop",
        geometry={"type": "LineString", "coordinates": path([(0, 0), (3000, 0)], step=50)},
    )
    gully = TrailFactory(
        trail_system=system,
        name="Gully",
        status="Closed",
        geometry={"type": "LineString", "coordinates": path([(2500, 0), (2500, 1000)], step=50)},
    )
    closure = create_closure(trail=ridge, actor=PATROL, start=1000.0, end=2000.0, reason="washout")
    return closure, ridge, gully


def route(corners) -> bytes:
    return gpx([path(corners, step=2)], START)


def check(client, system, body: bytes, content_type="application/gpx+xml"):
    return client.post(
        f"/api/v1/trail-systems/{system.pk}/route-check", body, content_type=content_type
    )


def test_a_route_over_a_closed_stretch_and_a_closed_trail_lists_both(system, manager, world):
    closure, _, gully = world
    body = route([(500, 0), (2500, 0), (2500, 600)])
    assert sum(1 for _ in body.split(b"<trkpt")) > 1000
    answer = check(manager, system, body)
    assert answer.status_code == 200, answer.content
    found = answer.json()
    assert [c["id"] for c in found["closures"]] == [closure.pk]
    assert found["closures"][0]["crossingMeters"] == pytest.approx(1000, abs=2)
    assert found["closures"][0]["crossing"]["type"] == "LineString"
    assert found["closures"][0]["reason"] == "washout"
    assert [(t["trailId"], t["name"]) for t in found["closedTrails"]] == [(gully.pk, "Gully")]
    assert found["closedTrails"][0]["crossingMeters"] == pytest.approx(615, abs=5)

    public = Client().post(f"/route-check/{system.pk}", body, content_type="application/gpx+xml")
    assert public.status_code == 200
    assert public.json() == found


def test_a_route_40_m_beside_them_lists_neither(system, manager, world):
    body = route([(500, -40), (2540, -40), (2540, 600)])
    found = check(manager, system, body).json()
    assert (found["closures"], found["closedTrails"]) == ([], [])


def test_a_geojson_line_is_checked_too(system, manager, world):
    line = {"type": "LineString", "coordinates": path([(900, 5), (2100, 5)], step=10)}
    found = check(manager, system, orjson.dumps(line), "application/geo+json").json()
    assert found["closures"][0]["crossingMeters"] == pytest.approx(1000, abs=2)


def test_a_route_over_2_mb_or_of_200000_points_is_refused(system, manager, world):
    too_big = check(manager, system, b"<gpx>" + b" " * (3 * 1024 * 1024) + b"</gpx>")
    assert too_big.status_code == 413
    public = Client().post(
        f"/route-check/{system.pk}",
        b"<gpx>" + b" " * (3 * 1024 * 1024) + b"</gpx>",
        content_type="application/gpx+xml",
    )
    assert public.status_code == 413
    zigzag = {"type": "LineString", "coordinates": [[0, i % 2] for i in range(200_000)]}
    body = orjson.dumps(zigzag)
    assert len(body) < 2 * 1024 * 1024
    refused = check(manager, system, body, "application/geo+json")
    assert refused.status_code == 400
    assert refused.json()["error"]["code"] == "route_too_long"
    assert "50000" in refused.json()["error"]["message"]


def test_a_route_that_is_not_one_is_a_clear_400(system, manager, world):
    refused = check(manager, system, b"<kml/>", "application/xml")
    assert refused.status_code == 400
    assert "not GPX" in refused.json()["error"]["message"]
