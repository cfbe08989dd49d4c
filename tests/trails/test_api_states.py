"""Section 3, the transitions table, row by row (the API-key rows are the auth issue's).

Each test is named after its row: from state, trigger, condition -> to state, and "also"."""

from datetime import timedelta

import pytest
from django.utils import timezone

from publishing.models import CompileRequest
from tests.factories import PointFactory, TrailActivityFactory, TrailFactory, UpdateFactory
from trails.models import Point, Trail, TrailActivity
from updates.models import Update

pytestmark = pytest.mark.django_db

TRAIL_STATUSES = ["Open", "Caution", "Closed", "None"]


def compiles(system) -> int:
    return CompileRequest.objects.filter(trail_system=system).count()


@pytest.mark.parametrize("before", TRAIL_STATUSES)
@pytest.mark.parametrize("after", TRAIL_STATUSES)
def test_row_1_any_trail_status_patch_status_valid_enum(system, manager, before, after):
    trail = TrailFactory(trail_system=system, status=before)
    response = manager.patch(f"/api/v1/trails/{trail.pk}", {"status": after}, format="json")
    assert response.json()["status"] == after
    assert compiles(system) == 1


def test_row_1_invalid_enum_leaves_the_status(system, manager):
    trail = TrailFactory(trail_system=system, status="Open")
    response = manager.patch(f"/api/v1/trails/{trail.pk}", {"status": "open"}, format="json")
    assert response.status_code == 400
    assert Trail.objects.get(pk=trail.pk).status == "Open"
    assert compiles(system) == 0


@pytest.mark.parametrize("before", TRAIL_STATUSES)
def test_row_2_patch_closed_closes_every_activity(system, manager, before):
    trail = TrailFactory(trail_system=system, status=before)
    for value, status in (("hiking", "Open"), ("skiing", "Caution"), ("running", "Closed")):
        TrailActivityFactory(trail=trail, value=value, status=status)
    body = manager.patch(f"/api/v1/trails/{trail.pk}", {"status": "Closed"}, format="json").json()
    assert body["status"] == "Closed"
    assert {a["status"] for a in body["activities"]} == {"Closed"}


def test_row_2_closed_wins_over_activity_changes_in_the_same_body(system, manager):
    trail = TrailFactory(trail_system=system)
    TrailActivityFactory(trail=trail, value="hiking", status="Closed")
    body = manager.patch(
        f"/api/v1/trails/{trail.pk}",
        {"status": "Closed", "activities": [{"value": "hiking", "status": "Open"}]},
        format="json",
    ).json()
    assert body["activities"][0]["status"] == "Closed"


@pytest.mark.parametrize("after", TRAIL_STATUSES)
def test_row_3_bulk_status_one_write_one_recompile(system, manager, after):
    trails = TrailFactory.create_batch(3, trail_system=system, status="Caution")
    for trail in trails:
        TrailActivityFactory(trail=trail, status="Open")
    response = manager.post(
        f"/api/v1/trail-systems/{system.pk}/trails/status",
        {"status": after, "trailIds": [t.pk for t in trails]},
        format="json",
    )
    assert response.status_code == 200
    assert set(Trail.objects.values_list("status", flat=True)) == {after}
    expected_activity = "Closed" if after == "Closed" else "Open"
    assert set(TrailActivity.objects.values_list("status", flat=True)) == {expected_activity}
    assert compiles(system) == 1


@pytest.mark.parametrize("after", ["Open", "Caution", "Closed"])
def test_row_4_activity_status_on_the_trail(system, manager, after):
    trail = TrailFactory(trail_system=system)
    TrailActivityFactory(trail=trail, value="hiking", status="Caution")
    body = manager.patch(
        f"/api/v1/trails/{trail.pk}",
        {"activities": [{"value": "hiking", "status": after}]},
        format="json",
    ).json()
    assert body["activities"][0]["status"] == after


def test_row_4_conditions_activity_on_trail_and_status_not_none(system, manager):
    trail = TrailFactory(trail_system=system)
    TrailActivityFactory(trail=trail, value="hiking", status="Open")
    path = f"/api/v1/trails/{trail.pk}"
    missing = manager.patch(path, {"activities": [{"value": "skiing", "status": "Closed"}]})
    none = manager.patch(path, {"activities": [{"value": "hiking", "status": "None"}]})
    assert missing.json()["error"]["code"] == "unknown_activity"
    assert none.json()["error"]["code"] == "invalid_field"
    assert TrailActivity.objects.get().status == "Open"


@pytest.mark.parametrize("before", ["Open", "Caution", "Closed"])
@pytest.mark.parametrize("after", ["Open", "Caution", "Closed"])
def test_row_5_point_status(system, manager, before, after):
    point = PointFactory(trail_system=system, status=before)
    response = manager.patch(f"/api/v1/points/{point.pk}", {"status": after}, format="json")
    assert response.json()["status"] == after
    assert compiles(system) == 1
    invalid = manager.patch(f"/api/v1/points/{point.pk}", {"status": "None"}, format="json")
    assert invalid.status_code == 400


def test_row_6_update_created_active(system, manager):
    trail = TrailFactory(trail_system=system)
    before = Trail.objects.get(pk=trail.pk).updated_on
    body = manager.post(
        f"/api/v1/trail-systems/{system.pk}/updates",
        {"type": "notice", "description": "Hi", "trailIds": [trail.pk]},
        format="json",
    ).json()
    assert Update.objects.active().filter(pk=body["id"]).exists()
    assert Trail.objects.get(pk=trail.pk).updated_on > before
    assert compiles(system) == 1


def test_row_7_expiry_reached_expired_but_listed_with_history(system, manager):
    update = UpdateFactory(
        trail_system=system, expiration_date=timezone.now() - timedelta(seconds=1)
    )
    url = f"/api/v1/trail-systems/{system.pk}/updates"
    assert manager.get(url).json()["updates"] == []
    history = manager.get(url + "?includeExpired=true").json()["updates"]
    assert [u["id"] for u in history] == [update.pk]


@pytest.mark.parametrize("expired", [False, True])
def test_row_8_delete_active_or_expired_update(system, manager, expired):
    offset = timedelta(hours=-1 if expired else 1)
    update = UpdateFactory(trail_system=system, expiration_date=timezone.now() + offset)
    assert manager.delete(f"/api/v1/updates/{update.pk}").status_code == 200
    assert not Update.objects.filter(pk=update.pk).exists()
    assert compiles(system) == 1


def test_row_9_patch_expiry_keeps_the_update_active_from_now(system, manager):
    update = UpdateFactory(
        trail_system=system, expiration_date=timezone.now() + timedelta(minutes=1)
    )
    manager.patch(f"/api/v1/updates/{update.pk}", {"expiresInHours": 48}, format="json")
    update.refresh_from_db()
    assert update.is_active
    assert update.expiration_date > timezone.now() + timedelta(hours=47)


@pytest.mark.parametrize(
    ("factory", "model", "path"),
    [(TrailFactory, Trail, "/api/v1/trails/"), (PointFactory, Point, "/api/v1/points/")],
    ids=["row_10_trail", "row_11_point"],
)
def test_rows_10_11_live_trail_or_point_trashed(system, manager, factory, model, path):
    row = factory(trail_system=system)
    manager.delete(path + row.pk)
    assert model.trash.filter(pk=row.pk).exists()
    assert not model.objects.filter(pk=row.pk).exists()
    assert compiles(system) == 1
