"""Point endpoints: list, get, create, PATCH, DELETE, with the limits of section 8."""

from datetime import timedelta

import pytest
from django.utils import timezone

from core import limits
from publishing.models import CompileRequest
from tests.factories import PointFactory
from trails.models import Point

pytestmark = pytest.mark.django_db

POINT_FIELDS = {
    "id", "trailSystemId", "name", "description", "markerClass", "status", "hidden",
    "waitTime", "webCamUrl", "diningOptions", "geolocation",
    "createdOn", "createdBy", "updatedOn", "updatedBy",
}  # fmt: skip
MINIMAL = {"name": "Lot A", "markerClass": "parking", "lat": 45.5, "lng": -73.5}


def error(response) -> tuple[int, str]:
    return response.status_code, response.json()["error"]["code"]


def points_url(system) -> str:
    return f"/api/v1/trail-systems/{system.pk}/points"


def test_list_newest_first(system, manager):
    now = timezone.now()
    old = PointFactory(trail_system=system, created_on=now - timedelta(days=1))
    new = PointFactory(trail_system=system, created_on=now)
    PointFactory(trail_system=system, trashed_on=now)
    PointFactory()
    body = manager.get(points_url(system)).json()
    assert body["trailSystemId"] == system.pk
    assert [p["id"] for p in body["points"]] == [new.pk, old.pk]
    assert set(body["points"][0]) == POINT_FIELDS


def test_get_one_point(system, manager):
    point = PointFactory(trail_system=system, dining_options={"menu": True}, wait_time=5)
    body = manager.get(f"/api/v1/points/{point.pk}").json()
    assert set(body) == POINT_FIELDS
    assert body["geolocation"] == {"lat": 45.7, "lng": -113.9}
    assert (body["diningOptions"], body["waitTime"]) == ({"menu": True}, 5)


class TestCreate:
    def test_minimal_point_with_defaults(self, system, manager):
        response = manager.post(points_url(system), MINIMAL, format="json")
        assert response.status_code == 201
        body = response.json()
        assert set(body) == POINT_FIELDS
        assert body["geolocation"] == {"lat": 45.5, "lng": -73.5}
        assert (body["status"], body["hidden"], body["waitTime"]) == ("Open", False, None)
        assert body["createdBy"] == system.owner.pk
        assert CompileRequest.objects.filter(trail_system=system).count() == 1

    def test_latitude_and_longitude_are_accepted(self, system, manager):
        body = {"name": "Hut", "markerClass": "cabin", "latitude": -10, "longitude": 20}
        created = manager.post(points_url(system), body, format="json").json()
        assert created["geolocation"] == {"lat": -10.0, "lng": 20.0}

    def test_every_optional_field(self, system, manager):
        sent = {
            **MINIMAL,
            "markerClass": "web-cam",
            "description": "Looks at the bowl.",
            "status": "Caution",
            "hidden": True,
            "waitTime": 0,
            "webCamUrl": "https://cams.example/1",
        }
        body = manager.post(points_url(system), sent, format="json").json()
        for field in ("markerClass", "description", "status", "hidden", "waitTime", "webCamUrl"):
            assert body[field] == sent[field]

    @pytest.mark.parametrize("missing", ["name", "markerClass", "lat", "lng"])
    def test_required_fields(self, system, manager, missing):
        body = {k: v for k, v in MINIMAL.items() if k != missing}
        assert error(manager.post(points_url(system), body, format="json")) == (
            400,
            "missing_field",
        )

    @pytest.mark.parametrize(
        ("field", "allowed", "refused"),
        [
            ("lat", 90, 90.000001),
            ("lat", -90, -90.000001),
            ("lng", 180, 180.000001),
            ("lng", -180, -180.000001),
            ("name", "a" * 200, "a" * 201),
            ("webCamUrl", "https://" + "a" * 1992, "https://" + "a" * 1993),
            ("waitTime", 0, -1),
            ("waitTime", limits.WAIT_TIME_MAX, limits.WAIT_TIME_MAX + 1),
        ],
    )
    def test_limits(self, system, manager, field, allowed, refused):
        ok = manager.post(points_url(system), {**MINIMAL, field: allowed}, format="json")
        assert ok.status_code == 201
        bad = manager.post(points_url(system), {**MINIMAL, field: refused}, format="json")
        assert error(bad) == (400, "invalid_field")

    @pytest.mark.parametrize(
        "wrong",
        [
            {"markerClass": "castle"},
            {"status": "None"},
            {"waitTime": 1.5},
            {"waitTime": "5"},
            {"hidden": "yes"},
            {"lat": "45.5"},
        ],
    )
    def test_wrong_values(self, system, manager, wrong):
        response = manager.post(points_url(system), {**MINIMAL, **wrong}, format="json")
        assert error(response) == (400, "invalid_field")


class TestChange:
    def test_changes_only_the_fields_sent(self, system, manager):
        point = PointFactory(trail_system=system, description="Kept")
        response = manager.patch(
            f"/api/v1/points/{point.pk}", {"status": "Closed", "waitTime": 12}, format="json"
        )
        assert response.status_code == 200
        body = response.json()
        assert set(body) == POINT_FIELDS
        assert (body["status"], body["waitTime"], body["description"]) == ("Closed", 12, "Kept")
        assert body["updatedBy"] == system.owner.pk
        assert CompileRequest.objects.filter(trail_system=system).count() == 1

    def test_lat_and_lng_move_the_point_together(self, system, manager):
        point = PointFactory(trail_system=system)
        path = f"/api/v1/points/{point.pk}"
        assert error(manager.patch(path, {"lat": 1}, format="json")) == (400, "missing_field")
        assert error(manager.patch(path, {"longitude": 1}, format="json")) == (
            400,
            "missing_field",
        )
        moved = manager.patch(path, {"latitude": 1, "longitude": 2}, format="json").json()
        assert moved["geolocation"] == {"lat": 1.0, "lng": 2.0}

    @pytest.mark.parametrize("body", [{}, {"diningOptions": True, "id": "x"}])
    def test_no_editable_field_is_no_changes(self, system, manager, body):
        point = PointFactory(trail_system=system)
        response = manager.patch(f"/api/v1/points/{point.pk}", body, format="json")
        assert error(response) == (400, "no_changes")

    def test_limits_apply_to_changes(self, system, manager):
        point = PointFactory(trail_system=system)
        path = f"/api/v1/points/{point.pk}"
        assert manager.patch(path, {"name": "a" * 200}, format="json").status_code == 200
        assert error(manager.patch(path, {"name": "a" * 201}, format="json")) == (
            400,
            "invalid_field",
        )
        assert error(manager.patch(path, {"waitTime": -1}, format="json")) == (
            400,
            "invalid_field",
        )


def test_delete_moves_the_point_to_the_trash(system, manager):
    point = PointFactory(trail_system=system)
    response = manager.delete(f"/api/v1/points/{point.pk}")
    assert response.json() == {"ok": True, "id": point.pk, "trashed": True}
    assert Point.trash.filter(pk=point.pk).exists()
    assert manager.get(f"/api/v1/points/{point.pk}").status_code == 404
    assert CompileRequest.objects.filter(trail_system=system).count() == 1
