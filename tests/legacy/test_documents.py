"""Each legacy route's output, key by key against the spec's field lists, and its encodings."""

import json
from datetime import UTC, datetime

import orjson
import pytest

from core.actors import Actor, Via
from tests.factories import TrailActivityFactory, TrailFactory, TrailSystemFactory, line
from tests.legacy.conftest import ACTIVITY_TOTALS, WEATHER
from trails import services
from trails.geometry import published_json

pytestmark = pytest.mark.django_db


def fields(spec_list: str) -> set[str]:
    """A field list written as the spec writes it: comma-separated names."""
    return {name.strip() for name in spec_list.split(",")}


SYSTEM_KEYS = fields(
    "name, description, phoneNumber, website, language, depthMeasurement, lengthMeasurement, "
    "tempMeasurement, inactive, hideName, promoteTrailHUB, geolocation, totalTrails, "
    "openTrails, cautionTrails, closedTrails, totalDistance, openDistance, activities, "
    "updates, weather, subscription, createdOn, updatedOn, geoJsonUrl, relatedTrailSystems, "
    "iconPath"
)
SYSTEM_ACTIVITY_KEYS = fields(
    "value, label, iconClass, totalTrails, openTrails, cautionTrails, closedTrails, "
    "totalDistance, openDistance, cautionDistance, closedDistance"
)
TRAIL_KEYS = fields(
    "trailSystemId, name, description, status, difficulty, type, lineStyle, hidden, oneWay, "
    "oneWayReversed, order, categories, activities, distance, geolocation, geoJson, "
    "elevations, createdOn, updatedOn"
)
POINT_KEYS = fields(
    "name, description, markerClass, status, hidden, waitTime, webCamUrl, diningOptions, "
    "geolocation, trailSystemId, createdOn, updatedOn"
)


def get_json(client, path: str):
    response = client.get(path)
    assert response.status_code == 200, path
    assert response["Content-Type"] == "application/json"
    return json.loads(response.content)


def seconds(iso: str) -> dict:
    moment = datetime.fromisoformat(iso)
    return {"_seconds": int(moment.timestamp()), "_nanoseconds": moment.microsecond * 1000}


def test_trail_system_document_has_the_spec_fields_in_firestore_shape(client, system):
    doc = get_json(client, f"/legacy/ts/{system.id}")

    assert set(doc) == SYSTEM_KEYS
    assert doc["promoteTrailHUB"] is False
    assert doc["createdOn"] == {"_seconds": 1704164645, "_nanoseconds": 678901000}
    assert doc["geolocation"] == {"_latitude": 45.69, "_longitude": -113.95}
    assert doc["openDistance"] == 4.5  # Open 2.0 plus Caution 2.5
    assert doc["totalDistance"] == 6.0
    assert doc["activities"] == ACTIVITY_TOTALS
    assert set(doc["activities"][0]) == SYSTEM_ACTIVITY_KEYS
    assert doc["geoJsonUrl"] == (
        "https://trails.example.org/media/published/bluebird-20260115-abc123.geojson"
    )
    assert doc["iconPath"] is False
    assert doc["relatedTrailSystems"] == [{"tsId": "other-ts", "name": "Whitefish Trails"}]
    assert doc["weather"]["observedAt"] == seconds("2026-01-15T14:00:00+00:00")
    assert doc["weather"]["description"] == "Light snow"


def test_updates_on_the_system_are_keyed_by_type_with_timestamp_dates(client, system):
    updates = get_json(client, f"/legacy/ts/{system.id}")["updates"]

    assert set(updates) == {"notice", "snowReport"}
    notice = updates["notice"][0]
    assert notice["description"] == "Parking lot B is closed."
    assert notice["expirationDate"] == seconds("2026-01-16T14:00:00+00:00")
    assert notice["updatedOn"] == seconds("2026-01-15T13:00:00.500+00:00")
    assert notice["updatedOn"]["_nanoseconds"] == 500_000_000
    report = updates["snowReport"][0]
    assert report["lastSnowDate"] == seconds("2026-01-14T00:00:00+00:00")
    assert report["lastSnowTime"] == "06:30"
    assert report["baseDepth"] == 30


def test_optional_system_fields_are_absent_until_set_and_icon_path_is_a_string_when_set(client):
    bare = TrailSystemFactory(icon_path="icons/bluebird.png", hidden_activities=["snowshoeing"])

    doc = get_json(client, f"/legacy/ts/{bare.id}")

    assert "weather" not in doc
    assert "relatedTrailSystems" not in doc
    assert doc["iconPath"] == "icons/bluebird.png"
    assert doc["hiddenActivities"] == ["snowshoeing"]
    assert doc["geoJsonUrl"] is None
    assert doc["updates"] == {}


def test_trails_of_a_system_are_every_live_trail_by_order_with_ids(client, system):
    trails = get_json(client, f"/legacy/trails/{system.id}")

    names = [t["name"] for t in trails]
    assert names == ["Ridge", "Creek", "Loop", "Meadow", "Chair 1", "Staff"]
    for entry in trails:
        assert set(entry) == TRAIL_KEYS | {"id"}
    assert trails[1]["id"] == system.fixture_trails["closed"].id
    assert {t["status"] for t in trails} == {"Open", "Caution", "Closed", "None"}
    assert trails[4]["type"] == "Lift"
    assert trails[5]["hidden"] is True


def test_legacy_trail_encodes_geometry_as_a_string_and_elevations_or_false(client, system):
    ridge = system.fixture_trails["caution"]
    trails = {t["name"]: t for t in get_json(client, f"/legacy/trails/{system.id}")}

    entry = trails["Ridge"]
    assert isinstance(entry["geoJson"], str)
    collection = json.loads(entry["geoJson"])
    assert collection["type"] == "FeatureCollection"
    assert collection["features"][0]["geometry"] == orjson.loads(
        published_json(orjson.dumps(ridge.geometry))
    )
    assert entry["elevations"] == [1500.0 + i for i in range(50)]
    assert trails["Meadow"]["elevations"] is False
    assert json.loads(trails["Loop"]["geoJson"])["features"][0]["geometry"]["type"] == (
        "MultiLineString"
    )
    assert entry["geolocation"] == {"_latitude": 45.69, "_longitude": -113.95}
    assert entry["trailSystemId"] == system.id
    assert entry["categories"] == ["north"]
    assert entry["createdOn"]["_seconds"] == int(ridge.created_on.timestamp())
    assert entry["createdOn"]["_nanoseconds"] == ridge.created_on.microsecond * 1000


def test_legacy_trail_activities_carry_label_icon_status_and_difficulty_when_set(client, system):
    trails = {t["name"]: t for t in get_json(client, f"/legacy/trails/{system.id}")}

    assert trails["Ridge"]["activities"] == [
        {
            "value": "nordic-classic",
            "label": "Classic skiing",
            "iconClass": "icon-nordic",
            "status": "Caution",
        },
        {
            "value": "snowshoeing",
            "label": "Snowshoeing",
            "iconClass": "icon-snowshoeing",
            "status": "Open",
            "difficulty": "square",
        },
    ]
    assert trails["Meadow"]["activities"] == []


def test_activity_labels_follow_the_system_language(client):
    trail = TrailFactory(trail_system=TrailSystemFactory(language="fr"))
    TrailActivityFactory(trail=trail, value="snowshoeing")

    entry = get_json(client, f"/legacy/trail/{trail.id}")

    assert entry["activities"][0]["label"] == "Raquette"


def test_one_trail_has_the_same_fields_as_in_the_list_without_id(client, system):
    ridge = system.fixture_trails["caution"]
    listed = {t["id"]: t for t in get_json(client, f"/legacy/trails/{system.id}")}[ridge.id]

    single = get_json(client, f"/legacy/trail/{ridge.id}")

    assert set(single) == TRAIL_KEYS
    assert single == {key: value for key, value in listed.items() if key != "id"}


@pytest.mark.parametrize("kind", ["parking", "wait", "cam", "dining"])
def test_point_has_exactly_the_spec_fields(client, system, kind):
    stored = system.fixture_points[kind]

    doc = get_json(client, f"/legacy/point/{stored.id}")

    assert set(doc) == POINT_KEYS
    assert doc["markerClass"] == stored.marker_class
    assert doc["trailSystemId"] == system.id
    assert doc["geolocation"] == {"_latitude": 45.7, "_longitude": -113.9}


def test_point_values(client, system):
    points = system.fixture_points
    parking = get_json(client, f"/legacy/point/{points['parking'].id}")
    assert parking["createdOn"] == {"_seconds": 1704164645, "_nanoseconds": 678901000}
    assert parking["diningOptions"] is False
    assert parking["waitTime"] is None
    assert get_json(client, f"/legacy/point/{points['wait'].id}")["waitTime"] == 15
    assert get_json(client, f"/legacy/point/{points['cam'].id}")["webCamUrl"] == (
        "https://cam.example.org/1"
    )
    assert get_json(client, f"/legacy/point/{points['dining'].id}")["diningOptions"] == {
        "hours": "9-5"
    }


def test_weather_is_a_one_element_forecast_from_the_stored_snapshot(client, system):
    forecast = get_json(client, f"/legacy/weather/{system.id}")

    assert len(forecast) == 1
    element = forecast[0]
    assert element["observedAt"] == seconds("2026-01-15T14:00:00+00:00")
    for key in set(WEATHER) - {"observedAt"}:
        assert element[key] == WEATHER[key]
    assert element["units"]["temperature"] == "celsius"
    assert element["units"]["windSpeed"] == "km/h"


def test_all_systems_file_lists_active_unblocked_systems_as_points(client, system):
    TrailSystemFactory(name="Closed for good", inactive=True)
    TrailSystemFactory(name="Blocked", blocked=True)

    collection = get_json(client, "/legacy/trail-systems")

    assert collection["type"] == "FeatureCollection"
    [feature] = collection["features"]
    assert feature["geometry"] == {"type": "Point", "coordinates": [-113.95, 45.69]}
    assert feature["properties"] == {
        "name": "Bluebird Nordic",
        "tsId": system.id,
        "openTrails": 1,
        "cautionTrails": 1,
        "closedTrails": 1,
        "activities": system.activity_totals,
    }
    assert [entry["value"] for entry in system.activity_totals] == ["nordic-classic"]


def test_the_list_shows_a_new_system_and_a_change_to_what_it_lists_once_committed(
    client, django_capture_on_commit_callbacks
):
    """Not only every 3 hours: an embed listing systems sees a new one, a new name and an
    inactive one leave, as soon as the write commits."""
    actor = Actor("uid-admin", Via.WEB_APP)

    def listed() -> list[str]:
        collection = get_json(client, "/legacy/trail-systems")
        return [feature["properties"]["name"] for feature in collection["features"]]

    with django_capture_on_commit_callbacks(execute=True):
        created = services.create_trail_system(
            name="Fresh Powder", owner_uid=None, actor=actor, lat=45.7, lng=-114.0
        )
    assert listed() == ["Fresh Powder"]

    with django_capture_on_commit_callbacks(execute=True):
        services.change_trail_system(system=created, name="Deep Powder", actor=actor)
    assert listed() == ["Deep Powder"]

    with django_capture_on_commit_callbacks(execute=True):
        services.change_trail_system(system=created, inactive=True, actor=actor)
    assert listed() == []


def test_timestamps_before_1970_floor_seconds_and_keep_nanoseconds_positive(client):
    early = datetime(1969, 12, 31, 23, 59, 59, 250000, tzinfo=UTC)
    ts = TrailSystemFactory(created_on=early)

    assert get_json(client, f"/legacy/ts/{ts.id}")["createdOn"] == {
        "_seconds": -1,
        "_nanoseconds": 250_000_000,
    }


def test_a_system_without_a_location_is_listed_at_the_centre_of_its_trails(
    client, client_for, django_capture_on_commit_callbacks
):
    """Embeds place every feature of the list on a map: a system created without a location
    is left out until it has a trail, then shown at the centre of its trails' extent, until
    a manager sets a location of its own."""
    actor = Actor("uid-admin", Via.WEB_APP)
    with django_capture_on_commit_callbacks(execute=True):
        system = services.create_trail_system(name="Nowhere Yet", owner_uid="uid-o", actor=actor)
    manager = client_for(system.owner)

    def listed() -> dict[str, dict]:
        features = get_json(client, "/legacy/trail-systems")["features"]
        assert all(feature["geometry"]["type"] == "Point" for feature in features)
        return {feature["properties"]["tsId"]: feature["geometry"] for feature in features}

    assert system.pk not in listed()
    for start_lng, start_lat, n in ((-114.0, 45.60, 5), (-113.90, 45.70, 101)):
        geometry = line(start_lng, start_lat, n)  # up to (-113.80, 45.80) for the second
        with django_capture_on_commit_callbacks(execute=True):
            answer = manager.post(
                f"/api/v1/trail-systems/{system.pk}/trails",
                {"name": f"T{n}", "geometry": geometry},
                format="json",
            )
        assert answer.status_code == 201

    coordinates = listed()[system.pk]["coordinates"]
    assert coordinates == pytest.approx([-113.90, 45.70])
    shown = manager.get(f"/api/v1/trail-systems/{system.pk}").json()
    assert shown["geolocation"] == pytest.approx({"lat": 45.70, "lng": -113.90})
    assert shown["geolocationDerived"] is True
    assert get_json(client, f"/legacy/ts/{system.pk}")["geolocation"]["_latitude"] == (
        pytest.approx(45.70)
    )

    with django_capture_on_commit_callbacks(execute=True):
        services.change_trail_system(system=system, lat=46.0, lng=-114.5, actor=actor)
    assert listed()[system.pk]["coordinates"] == [-114.5, 46.0]
    assert manager.get(f"/api/v1/trail-systems/{system.pk}").json()["geolocationDerived"] is False
