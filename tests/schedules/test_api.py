"""/api/v1/trail-systems/:id/schedules: list, create, read, PATCH and DELETE, with the same
access rules as trail writes (tests/apikeys/test_access_matrix.py covers every credential)."""

from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone

from core.actors import Actor, Via
from schedules.models import Schedule
from tests.config.api_surface import assert_envelope
from tests.factories import (
    MembershipFactory,
    ScheduleFactory,
    TrailActivityFactory,
    TrailFactory,
    TrailSystemFactory,
)
from trails.trash import trash_trail

pytestmark = pytest.mark.django_db

ZONE = ZoneInfo("America/Denver")
SCHEDULE_FIELDS = {
    "id", "trailSystemId", "trailIds", "activity", "status", "endStatus", "repeat", "startsAt",
    "endsAt", "startTime", "endTime", "firstDate", "lastDate", "reason", "timeZone", "inEffect",
    "nextChange", "finished", "createdOn", "createdBy", "updatedOn", "updatedBy",
}  # fmt: skip


@pytest.fixture
def system():
    return TrailSystemFactory(time_zone="America/Denver")


@pytest.fixture
def trail(system):
    return TrailFactory(trail_system=system, name="Race Course")


@pytest.fixture
def manager(system, client_for):
    return client_for(system.owner)


def url(system, schedule_id: str = "") -> str:
    base = f"/api/v1/trail-systems/{system.pk}/schedules"
    return f"{base}/{schedule_id}" if schedule_id else base


def local(days: int, hour: int = 16) -> str:
    """A local date-time `days` from today in Denver, at `hour`:00."""
    day = (timezone.now().astimezone(ZONE) + timedelta(days=days)).date()
    return f"{day.isoformat()}T{hour:02d}:00"


def one_off(trail, **fields) -> dict:
    return {
        "trailIds": [trail.pk],
        "status": "Closed",
        "repeat": "once",
        "startsAt": local(5),
        "endsAt": local(6, 8),
        "reason": "Giant slalom race",
        **fields,
    }


def test_create_a_one_off_closure(system, trail, manager):
    body = one_off(trail)
    response = manager.post(url(system), body, format="json")
    assert response.status_code == 201, response.content
    created = response.json()
    assert set(created) == SCHEDULE_FIELDS
    assert created["startsAt"] == body["startsAt"]
    assert created["endsAt"] == body["endsAt"]
    assert created["startTime"] is None and created["firstDate"] is None
    assert created["trailIds"] == [trail.pk]
    assert created["endStatus"] is None
    assert created["activity"] is None
    assert created["timeZone"] == "America/Denver"
    assert created["inEffect"] is False and created["finished"] is False
    assert created["createdBy"] == system.owner.uid
    next_change = created["nextChange"]
    assert next_change["action"] == "start" and next_change["status"] == "Closed"
    assert next_change["at"].endswith("Z")
    assert manager.get(url(system, created["id"])).json() == created


def test_create_a_daily_closure(system, trail, manager):
    body = {
        "trailIds": [trail.pk],
        "status": "Closed",
        "endStatus": "Open",
        "repeat": "daily",
        "startTime": "21:00",
        "endTime": "08:30",
        "lastDate": local(90)[:10],
    }
    created = manager.post(url(system), body, format="json").json()
    assert (created["startTime"], created["endTime"], created["endStatus"]) == (
        "21:00",
        "08:30",
        "Open",
    )
    assert created["startsAt"] is None and created["lastDate"] == body["lastDate"]
    assert created["nextChange"]["status"] in ("Closed", "Open")


def test_the_list_puts_the_next_change_first(system, trail, manager):
    later = manager.post(url(system), one_off(trail, startsAt=local(9), endsAt=None), format="json")
    sooner = manager.post(url(system), one_off(trail), format="json")
    body = manager.get(url(system)).json()
    assert body["trailSystemId"] == system.pk
    assert [s["id"] for s in body["schedules"]] == [sooner.json()["id"], later.json()["id"]]


def test_seconds_may_be_given(system, trail, manager):
    created = manager.post(
        url(system), one_off(trail, startsAt=local(5) + ":30", endsAt=None), format="json"
    ).json()
    assert created["startsAt"].endswith(":30")


@pytest.mark.parametrize(
    ("fields", "status", "code", "field"),
    [
        ({"startsAt": local(-1)}, 400, "invalid_field", "startsAt"),
        ({"endsAt": local(4)}, 400, "invalid_field", "endsAt"),
        ({"startsAt": local(500)}, 400, "invalid_field", "startsAt"),
        ({"startsAt": "2026-02-30T10:00"}, 400, "invalid_date", "startsAt"),
        ({"startsAt": "2026-12-19T16:00:00Z"}, 400, "invalid_date", "startsAt"),
        ({"startsAt": "tomorrow"}, 400, "invalid_date", "startsAt"),
        ({"startsAt": 1766185200}, 400, "invalid_field", "startsAt"),
        ({"startTime": "21:00"}, 400, "invalid_field", "startTime"),
        ({"firstDate": "2026-12-01"}, 400, "invalid_field", "firstDate"),
        ({"endsAt": None, "endStatus": "Open"}, 400, "invalid_field", "endStatus"),
        ({"status": "Shut"}, 400, "invalid_field", "status"),
        ({"repeat": "weekly"}, 400, "invalid_field", "repeat"),
        ({"reason": "x" * 501}, 400, "invalid_field", "reason"),
        ({"trailIds": []}, 400, "invalid_field", "trailIds"),
        ({"trailIds": ["nope"]}, 404, "trail_not_found", None),
        ({"activity": "nordic-skate"}, 400, "unknown_activity", "activity"),
    ],
)
def test_refusals(system, trail, manager, fields, status, code, field):
    body = {key: value for key, value in one_off(trail, **fields).items() if value is not None}
    error = assert_envelope(manager.post(url(system), body, format="json"), status, code)
    if field:
        assert error["message"].startswith(f"{field}:"), error
    assert not Schedule.objects.exists()


def test_a_daily_schedule_needs_its_time(system, trail, manager):
    body = {"trailIds": [trail.pk], "status": "Closed", "repeat": "daily"}
    error = assert_envelope(manager.post(url(system), body, format="json"), 400, "missing_field")
    assert error["message"].startswith("startTime:")


def test_a_one_off_schedule_needs_its_start(system, trail, manager):
    body = {"trailIds": [trail.pk], "status": "Closed", "repeat": "once"}
    error = assert_envelope(manager.post(url(system), body, format="json"), 400, "missing_field")
    assert error["message"].startswith("startsAt:")


@pytest.mark.parametrize("missing", ["trailIds", "status", "repeat"])
def test_required_fields(system, trail, manager, missing):
    body = {k: v for k, v in one_off(trail).items() if k != missing}
    error = assert_envelope(manager.post(url(system), body, format="json"), 400, "missing_field")
    assert error["message"].startswith(f"{missing}:")


def test_an_activity_status_is_never_none(system, trail, manager):
    TrailActivityFactory(trail=trail, value="nordic-skate")
    body = one_off(trail, activity="nordic-skate", status="None")
    error = assert_envelope(manager.post(url(system), body, format="json"), 400, "invalid_field")
    assert error["message"].startswith("status:")


def test_a_trail_of_another_system_is_not_found(system, manager):
    elsewhere = TrailFactory()
    response = manager.post(url(system), one_off(elsewhere), format="json")
    assert_envelope(response, 404, "trail_not_found")


def test_at_most_200_schedules_per_system(system, trail, manager):
    ScheduleFactory.create_batch(200, trail_system=system)
    response = manager.post(url(system), one_off(trail), format="json")
    assert_envelope(response, 400, "too_many_schedules")


def test_patch_changes_only_the_fields_sent(system, trail, manager):
    created = manager.post(url(system), one_off(trail), format="json").json()
    changed = manager.patch(
        url(system, created["id"]), {"reason": "Race moved to Sunday"}, format="json"
    ).json()
    assert changed["reason"] == "Race moved to Sunday"
    assert {k: v for k, v in changed.items() if k not in ("reason", "updatedOn")} == {
        k: v for k, v in created.items() if k not in ("reason", "updatedOn")
    }


def test_patch_to_daily_drops_the_one_off_times(system, trail, manager):
    created = manager.post(url(system), one_off(trail), format="json").json()
    response = manager.patch(
        url(system, created["id"]), {"repeat": "daily", "startTime": "21:00"}, format="json"
    )
    changed = response.json()
    assert (changed["startsAt"], changed["endsAt"], changed["startTime"]) == (None, None, "21:00")


def test_patch_to_daily_without_a_time_is_refused(system, trail, manager):
    created = manager.post(url(system), one_off(trail), format="json").json()
    response = manager.patch(url(system, created["id"]), {"repeat": "daily"}, format="json")
    assert_envelope(response, 400, "missing_field")
    assert Schedule.objects.get().repeat == "once"


def test_patch_an_empty_body_is_no_changes(system, trail, manager):
    created = manager.post(url(system), one_off(trail), format="json").json()
    assert_envelope(manager.patch(url(system, created["id"]), {}, format="json"), 400, "no_changes")


def test_patch_replaces_the_trails(system, trail, manager):
    created = manager.post(url(system), one_off(trail), format="json").json()
    other = TrailFactory(trail_system=system)
    changed = manager.patch(
        url(system, created["id"]), {"trailIds": [other.pk, trail.pk]}, format="json"
    ).json()
    assert set(changed["trailIds"]) == {other.pk, trail.pk}


def test_delete(system, trail, manager):
    created = manager.post(url(system), one_off(trail), format="json").json()
    response = manager.delete(url(system, created["id"]))
    assert response.json() == {"ok": True, "id": created["id"], "deleted": True}
    assert_envelope(manager.get(url(system, created["id"])), 404, "schedule_not_found")


def test_a_schedule_of_another_system_is_not_found_here(system, manager):
    other = TrailSystemFactory(owner=system.owner)
    elsewhere = ScheduleFactory(trail_system=other)
    for method in ("get", "patch", "delete"):
        response = getattr(manager, method)(
            url(system, elsewhere.pk), {"reason": "x"}, format="json"
        )
        assert_envelope(response, 404, "schedule_not_found")
    assert Schedule.objects.filter(pk=elsewhere.pk, reason="").exists()


def test_a_trashed_trail_is_not_listed(system, trail, manager):
    created = manager.post(url(system), one_off(trail), format="json").json()
    trash_trail(trail=trail, actor=Actor("x", Via.WEB_APP))
    assert manager.get(url(system, created["id"])).json()["trailIds"] == []


def test_a_trustee_manages_schedules(system, trail, client_for):
    trustee = MembershipFactory(trail_system=system, role="Trustee").user
    response = client_for(trustee).post(url(system), one_off(trail), format="json")
    assert response.status_code == 201
