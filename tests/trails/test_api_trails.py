"""Trail endpoints: list, get, create, PATCH, bulk status, DELETE."""

import pytest

from publishing.models import CompileRequest
from tests.factories import TrailActivityFactory, TrailFactory, TrailSystemFactory
from trails.models import Trail, TrailActivity

pytestmark = pytest.mark.django_db

TRAIL_FIELDS = {
    "id", "trailSystemId", "name", "description", "status", "difficulty", "type", "lineStyle",
    "hidden", "oneWay", "oneWayReversed", "order", "categories", "activities", "distance",
    "geolocation", "createdOn", "createdBy", "updatedOn", "updatedBy",
    "statusConfirmedOn", "statusConfirmedBy",  # additive (issue 21): last confirmed
}  # fmt: skip
MERIDIAN_DEGREE = {"type": "LineString", "coordinates": [[0, 0], [0, 1]]}


def error(response) -> tuple[int, str]:
    return response.status_code, response.json()["error"]["code"]


def trails_url(system, suffix: str = "") -> str:
    return f"/api/v1/trail-systems/{system.pk}/trails{suffix}"


def compiles(system) -> int:
    return CompileRequest.objects.filter(trail_system=system).count()


class TestList:
    def test_ordered_by_order_without_geometry(self, system, manager):
        second = TrailFactory(trail_system=system, order=2)
        first = TrailFactory(trail_system=system, order=-1)
        TrailFactory(trail_system=system, order=0, trashed_on="2026-01-01T00:00Z")
        TrailFactory()
        body = manager.get(trails_url(system)).json()
        assert body["trailSystemId"] == system.pk
        assert [t["id"] for t in body["trails"]] == [first.pk, second.pk]
        assert set(body["trails"][0]) == TRAIL_FIELDS

    def test_include_geojson_adds_the_parsed_geometry(self, system, manager):
        trail = TrailFactory(trail_system=system)
        body = manager.get(trails_url(system, "?include=geoJson")).json()
        (shown,) = body["trails"]
        assert set(shown) == TRAIL_FIELDS | {"geoJson"}
        assert shown["geoJson"] == {
            "type": "FeatureCollection",
            "features": [{"type": "Feature", "properties": {}, "geometry": trail.geometry}],
        }

    def test_activities_show_label_icon_status_and_difficulty(self, client_for):
        system = TrailSystemFactory(language="fr")
        trail = TrailFactory(trail_system=system)
        TrailActivityFactory(trail=trail, value="hiking", status="Caution", difficulty="square")
        TrailActivityFactory(trail=trail, value="skiing", status="Open", position=1)
        body = client_for(system.owner).get(f"/api/v1/trails/{trail.pk}").json()
        assert body["activities"] == [
            {
                "value": "hiking",
                "label": "Randonnée pédestre",
                "iconClass": "icon-hiking",
                "status": "Caution",
                "difficulty": "square",
            },
            {"value": "skiing", "label": "Ski alpin", "iconClass": "icon-skiing", "status": "Open"},
        ]


def test_get_shows_the_trail_with_geojson_and_no_elevations(system, manager):
    trail = TrailFactory(trail_system=system, elevations=[1.0] * 50)
    body = manager.get(f"/api/v1/trails/{trail.pk}").json()
    assert set(body) == TRAIL_FIELDS | {"geoJson"}
    assert body["geoJson"]["features"][0]["geometry"] == trail.geometry


class TestCreate:
    def test_defaults_distance_geolocation_and_order(self, system, manager):
        TrailFactory.create_batch(2, trail_system=system)
        TrailFactory(trail_system=system, trashed_on="2026-01-01T00:00Z")
        response = manager.post(
            trails_url(system), {"name": "Ridge", "geometry": MERIDIAN_DEGREE}, format="json"
        )
        assert response.status_code == 201
        body = response.json()
        assert set(body) == TRAIL_FIELDS  # geoJson only on GET
        assert body["distance"] == pytest.approx(110.574, abs=0.001)  # WGS84, not a sphere
        assert body["geolocation"] == {"lat": 0.0, "lng": 0.0}
        assert body["order"] == -2
        assert body["activities"] == []
        assert body["categories"] == []
        assert (body["difficulty"], body["type"], body["lineStyle"]) == (
            "notRated",
            "Standard",
            "Solid",
        )
        assert (body["hidden"], body["oneWay"], body["oneWayReversed"]) == (False, False, False)
        assert body["createdBy"] == body["updatedBy"] == system.owner.pk
        assert compiles(system) == 1

    def test_every_optional_field(self, system, manager):
        sent = {
            "name": "Ridge",
            "geometry": {
                "type": "MultiLineString",
                "coordinates": [[[1, 2], [1, 3]], [[5, 5], [6, 5]]],
            },
            "status": "Caution",
            "difficulty": "doubleDiamond",
            "description": "Steep.",
            "type": "Lift",
            "lineStyle": "Dashed",
            "hidden": True,
            "oneWay": True,
            "oneWayReversed": True,
            "order": 7,
            "categories": ["summer", "night"],
        }
        body = manager.post(trails_url(system), sent, format="json").json()
        for field, value in sent.items():
            if field != "geometry":
                assert body[field] == value
        assert body["geolocation"] == {"lat": 2.0, "lng": 1.0}
        shown = manager.get(f"/api/v1/trails/{body['id']}").json()
        assert shown["geoJson"]["features"][0]["geometry"] == sent["geometry"]

    @pytest.mark.parametrize(
        "geometry",
        [
            None,
            "LINESTRING(0 0, 1 1)",
            {"type": "Point", "coordinates": [0, 0]},
            {"type": "LineString", "coordinates": [[0, 0]]},
            {"type": "LineString", "coordinates": [[0, 0], [0, 0]]},
            {"type": "LineString", "coordinates": [[181, 0], [0, 0]]},
            {"type": "LineString", "coordinates": [[0, 91], [0, 0]]},
            {"type": "LineString", "coordinates": [["0", "1"], [0, 0]]},
            {"type": "MultiLineString", "coordinates": []},
            {"type": "MultiLineString", "coordinates": [[[0, 0], [1, 1]], [[2, 2]]]},
        ],
    )
    def test_unusable_geometry(self, system, manager, geometry):
        response = manager.post(
            trails_url(system), {"name": "X", "geometry": geometry}, format="json"
        )
        assert error(response) == (400, "invalid_geometry")
        assert not Trail.objects.exists()

    @pytest.mark.parametrize(
        ("body", "code"),
        [
            ({"geometry": MERIDIAN_DEGREE}, "missing_field"),
            ({"name": "X"}, "missing_field"),
            ({"name": "X", "geometry": MERIDIAN_DEGREE, "status": "Shut"}, "invalid_field"),
            ({"name": "X", "geometry": MERIDIAN_DEGREE, "difficulty": "easy"}, "invalid_field"),
            ({"name": "X", "geometry": MERIDIAN_DEGREE, "hidden": "no"}, "invalid_field"),
            ({"name": "X", "geometry": MERIDIAN_DEGREE, "order": "1"}, "invalid_field"),
            ({"name": "X", "geometry": MERIDIAN_DEGREE, "order": 2**31}, "invalid_field"),
            ({"name": "X", "geometry": MERIDIAN_DEGREE, "categories": "a"}, "invalid_field"),
        ],
    )
    def test_field_errors(self, system, manager, body, code):
        assert error(manager.post(trails_url(system), body, format="json")) == (400, code)

    @pytest.mark.parametrize(("field", "limit"), [("name", 200), ("description", 5000)])
    def test_text_limits(self, system, manager, field, limit):
        body = {"name": "X", "geometry": MERIDIAN_DEGREE}
        ok = manager.post(trails_url(system), {**body, field: "a" * limit}, format="json")
        assert ok.status_code == 201
        too_long = manager.post(
            trails_url(system), {**body, field: "a" * (limit + 1)}, format="json"
        )
        assert error(too_long) == (400, "invalid_field")


class TestChange:
    def test_changes_only_the_fields_sent(self, system, manager):
        trail = TrailFactory(trail_system=system, description="Old", difficulty="circle")
        response = manager.patch(
            f"/api/v1/trails/{trail.pk}", {"name": "New", "hidden": True}, format="json"
        )
        assert response.status_code == 200
        body = response.json()
        assert set(body) == TRAIL_FIELDS
        assert (body["name"], body["hidden"]) == ("New", True)
        assert (body["description"], body["difficulty"]) == ("Old", "circle")
        assert body["updatedBy"] == system.owner.pk
        assert compiles(system) == 1

    def test_activity_status_and_difficulty(self, system, manager):
        trail = TrailFactory(trail_system=system)
        TrailActivityFactory(trail=trail, value="hiking")
        TrailActivityFactory(trail=trail, value="skiing")
        body = manager.patch(
            f"/api/v1/trails/{trail.pk}",
            {"activities": [{"value": "skiing", "status": "Caution", "difficulty": "diamond"}]},
            format="json",
        ).json()
        assert [(a["value"], a["status"], a.get("difficulty")) for a in body["activities"]] == [
            ("hiking", "Open", None),
            ("skiing", "Caution", "diamond"),
        ]

    def test_open_after_closed_leaves_the_activities_closed_as_the_interface_says(
        self, system, manager
    ):
        """Only Closed cascades in the API (the web app also reopens: issue 33)."""
        trail = TrailFactory(trail_system=system, status="Open")
        TrailActivityFactory(trail=trail, value="hiking", status="Open")
        url = f"/api/v1/trails/{trail.pk}"
        closed = manager.patch(url, {"status": "Closed"}, format="json").json()
        reopened = manager.patch(url, {"status": "Open"}, format="json").json()
        assert [a["status"] for a in closed["activities"]] == ["Closed"]
        assert reopened["status"] == "Open"
        assert [a["status"] for a in reopened["activities"]] == ["Closed"]

    def test_an_activity_the_trail_lacks_is_unknown_activity(self, system, manager):
        trail = TrailFactory(trail_system=system)
        TrailActivityFactory(trail=trail, value="hiking")
        response = manager.patch(
            f"/api/v1/trails/{trail.pk}",
            {"name": "Kept?", "activities": [{"value": "skiing", "status": "Open"}]},
            format="json",
        )
        assert error(response) == (400, "unknown_activity")
        trail.refresh_from_db()
        assert trail.name != "Kept?"

    @pytest.mark.parametrize(
        "activity",
        [
            {"value": "hiking", "status": "None"},
            {"status": "Open"},
            {"value": "hiking", "difficulty": "x"},
        ],
    )
    def test_bad_activity_changes(self, system, manager, activity):
        trail = TrailFactory(trail_system=system)
        TrailActivityFactory(trail=trail, value="hiking")
        response = manager.patch(
            f"/api/v1/trails/{trail.pk}", {"activities": [activity]}, format="json"
        )
        assert response.status_code == 400
        assert response.json()["error"]["code"] in ("invalid_field", "missing_field")

    @pytest.mark.parametrize("body", [{}, {"geometry": MERIDIAN_DEGREE, "id": "x"}])
    def test_no_editable_field_is_no_changes(self, system, manager, body):
        trail = TrailFactory(trail_system=system)
        assert error(manager.patch(f"/api/v1/trails/{trail.pk}", body, format="json")) == (
            400,
            "no_changes",
        )

    @pytest.mark.parametrize(("field", "limit"), [("name", 200), ("description", 5000)])
    def test_text_limits(self, system, manager, field, limit):
        trail = TrailFactory(trail_system=system)
        path = f"/api/v1/trails/{trail.pk}"
        assert manager.patch(path, {field: "a" * limit}, format="json").status_code == 200
        too_long = manager.patch(path, {field: "a" * (limit + 1)}, format="json")
        assert error(too_long) == (400, "invalid_field")


class TestBulkStatus:
    def test_sets_the_status_of_the_named_trails_in_one_compile(self, system, manager):
        named = TrailFactory.create_batch(2, trail_system=system, status="Open")
        other = TrailFactory(trail_system=system, status="Open")
        response = manager.post(
            trails_url(system, "/status"),
            {"status": "Caution", "trailIds": [t.pk for t in named]},
            format="json",
        )
        assert response.status_code == 200
        body = response.json()
        assert set(body) == {"ok", "status", "updated"}
        assert (body["ok"], body["status"]) == (True, "Caution")
        assert sorted(body["updated"], key=lambda t: t["id"]) == sorted(
            ({"id": t.pk, "name": t.name} for t in named), key=lambda t: t["id"]
        )
        statuses = dict(Trail.objects.values_list("id", "status"))
        assert [statuses[t.pk] for t in named] == ["Caution", "Caution"]
        assert statuses[other.pk] == "Open"
        assert compiles(system) == 1

    def test_all_closes_every_trail_and_activity(self, system, manager):
        trails = TrailFactory.create_batch(2, trail_system=system)
        for trail in trails:
            TrailActivityFactory(trail=trail)
        foreign = TrailFactory(status="Open")
        body = manager.post(
            trails_url(system, "/status"), {"status": "Closed", "all": True}, format="json"
        ).json()
        assert len(body["updated"]) == 2
        assert set(Trail.objects.filter(trail_system=system).values_list("status", flat=True)) == {
            "Closed"
        }
        assert set(TrailActivity.objects.values_list("status", flat=True)) == {"Closed"}
        foreign.refresh_from_db()
        assert foreign.status == "Open"

    def test_open_leaves_closed_activities_closed(self, system, manager):
        trail = TrailFactory(trail_system=system, status="Closed")
        TrailActivityFactory(trail=trail, status="Closed")
        manager.post(trails_url(system, "/status"), {"status": "Open", "all": True}, format="json")
        assert Trail.objects.get(pk=trail.pk).status == "Open"
        assert set(TrailActivity.objects.values_list("status", flat=True)) == {"Closed"}

    @pytest.mark.parametrize("kind", ["unknown", "other system", "trashed"])
    def test_any_unknown_id_changes_nothing(self, system, manager, kind):
        known = TrailFactory(trail_system=system, status="Open")
        stray = {
            "unknown": lambda: "no-such-trail",
            "other system": lambda: TrailFactory().pk,
            "trashed": lambda: TrailFactory(trail_system=system, trashed_on="2026-01-01T00:00Z").pk,
        }[kind]()
        response = manager.post(
            trails_url(system, "/status"),
            {"status": "Closed", "trailIds": [known.pk, stray]},
            format="json",
        )
        assert error(response) == (404, "trail_not_found")
        known.refresh_from_db()
        assert known.status == "Open"
        assert compiles(system) == 0

    @pytest.mark.parametrize(
        ("body", "code"),
        [
            ({"all": True}, "missing_field"),
            ({"status": "Open"}, "missing_field"),
            ({"status": "Shut", "all": True}, "invalid_field"),
            ({"status": "Open", "trailIds": []}, "invalid_field"),
            ({"status": "Open", "trailIds": "abc"}, "invalid_field"),
        ],
    )
    def test_body_errors(self, system, manager, body, code):
        assert error(manager.post(trails_url(system, "/status"), body, format="json")) == (
            400,
            code,
        )


def test_delete_moves_the_trail_to_the_trash(system, manager):
    trail = TrailFactory(trail_system=system)
    response = manager.delete(f"/api/v1/trails/{trail.pk}")
    assert response.status_code == 200
    assert response.json() == {"ok": True, "id": trail.pk, "trashed": True}
    assert Trail.trash.get(pk=trail.pk).trashed_by == system.owner.pk
    assert manager.get(f"/api/v1/trails/{trail.pk}").status_code == 404
    assert compiles(system) == 1
