"""Hostile input: every number has a bound no real value reaches, every list a count limit,
and stored data from before the bounds never breaks the legacy interface (defects 1, 6, 9)."""

import orjson
import pytest
from django.core.files.storage import default_storage

from core import limits
from core.actors import Actor, Via
from core.errors import Invalid
from legacy.firestore import with_timestamps
from tests.factories import TrailFactory, TrailSystemFactory
from trails import services, tasks
from trails.elevations.sampling import SAMPLES
from trails.geometry import GeometryError, validate
from trails.models import Trail
from updates.models import Update

pytestmark = pytest.mark.django_db


def error(response) -> tuple[int, str]:
    return response.status_code, response.json()["error"]["code"]


def line(n: int, elevation: float | None = None) -> list[list[float]]:
    extra = [] if elevation is None else [elevation]
    return [[-113.95 + i * 1e-5, 45.69, *extra] for i in range(n)]


def legacy_coordinates(document: dict) -> list:
    return orjson.loads(document["geoJson"])["features"][0]["geometry"]["coordinates"]


def trails_url(system) -> str:
    return f"/api/v1/trail-systems/{system.pk}/trails"


@pytest.mark.parametrize("depth", [10**20, limits.SNOW_DEPTH_MAX + 1, 1e300])
def test_a_snow_depth_beyond_the_bound_is_refused(system, manager, depth):
    response = manager.post(
        f"/api/v1/trail-systems/{system.pk}/updates",
        {"type": "snowReport", "baseDepth": depth},
        format="json",
    )
    assert error(response) == (400, "invalid_field")
    assert "baseDepth" in response.json()["error"]["message"]
    assert not Update.objects.exists()


def test_the_largest_snow_depth_is_taken(system, manager):
    response = manager.post(
        f"/api/v1/trail-systems/{system.pk}/updates",
        {"type": "snowReport", "baseDepth": limits.SNOW_DEPTH_MAX},
        format="json",
    )
    assert response.status_code == 201


def test_legacy_system_document_shows_a_huge_stored_integer_instead_of_failing(client):
    """jsonb gives back 1e20 as a Python int beyond 64 bits, which orjson cannot encode."""
    system = TrailSystemFactory(published_updates={"snowReport": [{"baseDepth": 10**20}]})
    response = client.get(f"/legacy/ts/{system.pk}")
    assert response.status_code == 200
    assert response.json()["updates"]["snowReport"][0]["baseDepth"] == 1e20


def test_legacy_trails_show_huge_stored_numbers_instead_of_failing(client):
    trail = TrailFactory(categories=["Nordic"], order=0)
    Trail.objects.filter(pk=trail.pk).update(categories=[10**20])
    response = client.get(f"/legacy/trails/{trail.trail_system_id}")
    assert response.status_code == 200
    assert response.json()[0]["categories"] == [1e20]


def test_stored_integers_beyond_a_float_become_null():
    assert with_timestamps({"a": [10**400, -(10**20), 5]}) == {"a": [None, -1e20, 5]}


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("waitTime", limits.WAIT_TIME_MAX + 1),
        ("waitTime", 10**30),
        ("lat", 90.5),
        ("lng", -(10**400)),
    ],
)
def test_point_numbers_beyond_their_bounds_are_refused(system, manager, field, value):
    body = {"name": "Lift", "markerClass": "parking", "lat": 45.7, "lng": -113.9, field: value}
    response = manager.post(f"/api/v1/trail-systems/{system.pk}/points", body, format="json")
    assert error(response) == (400, "invalid_field")


@pytest.mark.parametrize("order", [limits.TRAIL_ORDER_MAX + 1, -(10**20)])
def test_a_trail_order_beyond_the_bound_is_refused(system, manager, order):
    body = {"name": "X", "geometry": {"type": "LineString", "coordinates": line(2)}, "order": order}
    assert error(manager.post(trails_url(system), body, format="json")) == (400, "invalid_field")


@pytest.mark.parametrize("elevation", [1e308, -1e308, limits.ELEVATION_MAX + 1, 10**400])
def test_an_absurd_elevation_is_refused(system, manager, elevation):
    geometry = {"type": "LineString", "coordinates": line(3, elevation)}
    response = manager.post(trails_url(system), {"name": "X", "geometry": geometry}, format="json")
    assert error(response) == (400, "invalid_geometry")
    assert not Trail.objects.exists()


@pytest.mark.parametrize("elevation", [1e308, -1e308])
def test_the_elevation_task_survives_stored_absurd_elevations(elevation):
    """A geometry stored before the bound: the provider is asked instead of the coordinates."""
    trail = TrailFactory(geometry={"type": "LineString", "coordinates": line(3, elevation)})
    assert tasks.store_elevations(trail.pk)
    trail.refresh_from_db()
    assert len(trail.elevations) == SAMPLES
    assert all(limits.ELEVATION_MIN <= value <= limits.ELEVATION_MAX for value in trail.elevations)


def test_too_many_lines_are_refused(system, manager):
    geometry = {
        "type": "MultiLineString",
        "coordinates": [line(2) for _ in range(limits.GEOMETRY_PARTS_MAX + 1)],
    }
    response = manager.post(trails_url(system), {"name": "X", "geometry": geometry}, format="json")
    assert error(response) == (400, "invalid_geometry")
    assert "at most" in response.json()["error"]["message"]
    assert len(response.content) < 300


def test_a_geometry_with_the_most_lines_is_taken(system, manager):
    geometry = {
        "type": "MultiLineString",
        "coordinates": [line(2) for _ in range(limits.GEOMETRY_PARTS_MAX)],
    }
    response = manager.post(trails_url(system), {"name": "X", "geometry": geometry}, format="json")
    assert response.status_code == 201


def test_no_body_under_the_limit_carries_too_many_positions():
    """The position count bounds only trails that come another way (imports): the smallest
    position a body can hold is '[0,0],'."""
    smallest = orjson.dumps({"geometry": {"type": "LineString", "coordinates": [[0, 0]] * 3}})
    per_position = len(b"[0,0],")
    assert (limits.GEOMETRY_POSITIONS_MAX + 1) * per_position > limits.REQUEST_BODY_MAX
    assert len(smallest) < limits.REQUEST_BODY_MAX
    too_many = {
        "type": "LineString",
        "coordinates": [[0, 0], [1, 1]] * (1 + limits.GEOMETRY_POSITIONS_MAX // 2),
    }
    with pytest.raises(GeometryError, match="at most"):
        validate(too_many)


def test_a_long_gps_trace_is_taken_published_and_served(
    system, manager, client, django_capture_on_commit_callbacks
):
    """52,000 positions at ~1 m spacing, a real body of over a megabyte."""
    coordinates = [
        [round(-113.95 + i * 1.3e-5, 6), round(45.69 + (i % 400) * 2e-6, 6), 1500.0 + i % 50]
        for i in range(52_000)
    ]
    body = orjson.dumps(
        {"name": "Long trace", "geometry": {"type": "LineString", "coordinates": coordinates}}
    )
    assert 1_000_000 < len(body) < 1_900_000

    with django_capture_on_commit_callbacks(execute=True):
        response = manager.post(trails_url(system), body, content_type="application/json")

    assert response.status_code == 201
    trail_id = response.json()["id"]
    system.refresh_from_db()
    with default_storage.open(system.geo_json_path, "rb") as stored:
        published = orjson.loads(stored.read())
    drawn = [f for f in published["features"] if f["properties"].get("trailId") == trail_id]
    assert [p[:2] for p in drawn[0]["geometry"]["coordinates"]] == [p[:2] for p in coordinates]
    legacy = client.get(f"/legacy/trail/{trail_id}").json()
    assert [p[:2] for p in legacy_coordinates(legacy)] == [p[:2] for p in coordinates]


def test_too_many_categories_are_refused(system, manager):
    trail = TrailFactory(trail_system=system)
    categories = [f"c{i}" for i in range(limits.CATEGORIES_MAX + 1)]
    response = manager.patch(f"/api/v1/trails/{trail.pk}", {"categories": categories})
    assert error(response) == (400, "invalid_field")
    assert (
        len(
            manager.patch(f"/api/v1/trails/{trail.pk}", {"categories": categories[:-1]}).json()[
                "categories"
            ]
        )
        == limits.CATEGORIES_MAX
    )


def test_every_write_path_keeps_the_category_limit(system):
    """The web app and commands call the service, which checks the limit too."""
    trail = TrailFactory(trail_system=system)
    with pytest.raises(Invalid) as refused:
        services.change_trail(
            trail=trail,
            categories=["x" * (limits.CATEGORY_LENGTH_MAX + 1)],
            actor=Actor("uid-web", Via.WEB_APP),
        )
    assert refused.value.code == "invalid_field"


def test_too_many_ids_are_refused(system, manager):
    ids = [f"t{i}" for i in range(limits.IDS_PER_REQUEST_MAX + 1)]
    response = manager.post(
        f"/api/v1/trail-systems/{system.pk}/trails/status", {"status": "Open", "trailIds": ids}
    )
    assert error(response) == (400, "invalid_field")
    assert len(response.content) < 300


def test_an_error_about_many_unknown_ids_stays_short(system, manager):
    ids = [f"unknown-{i:05d}" for i in range(5000)]
    response = manager.post(
        f"/api/v1/trail-systems/{system.pk}/trails/status", {"status": "Open", "trailIds": ids}
    )
    assert error(response) == (404, "trail_not_found")
    message = response.json()["error"]["message"]
    assert "unknown-00000, unknown-00001" in message and "and 4,995 more" in message
    assert len(response.content) < 300


def test_an_update_naming_many_unknown_trails_gets_a_short_error(system, manager):
    ids = [f"unknown-{i:05d}" for i in range(2000)]
    response = manager.post(
        f"/api/v1/trail-systems/{system.pk}/updates",
        {"type": "notice", "description": "x", "trailIds": ids},
    )
    assert error(response) == (404, "trail_not_found")
    assert len(response.content) < 300
