"""Writes of scheduled status changes, and applying them when they fall due.

A due change goes through trails.services.change_trail, as a manager's would: the status
history records it along the path `schedule` with the uid of whoever last set the schedule,
a compile is requested, and whatever else that service does on a change happens too. Each
occurrence is recorded (ScheduleRun) in the transaction of its change, under a lock of the
schedule's row, so it is applied once: a pass that dies before its commit leaves nothing, and
the next pass applies it late. When several occurrences of a schedule fell due while nothing
ran, only the latest is applied (the state that should hold now); the others are recorded as
superseded.

Editing or deleting a schedule takes the same lock and first applies what was already due
under its old definition; the edit governs only what falls due after it (armed_on)."""

import logging
from collections.abc import Iterable, Mapping, Sequence
from datetime import date, datetime, time, timedelta
from typing import TypedDict, Unpack

from django.db import transaction
from django.utils import timezone

from closures.services import settle_closures
from core.actors import Actor, Via
from core.errors import Invalid, NotFound
from core.limits import some_of
from schedules import occurrences as timing
from schedules.models import Action, Outcome, Repeat, Schedule, ScheduleRun
from schedules.selectors import due_schedule_ids
from trails import services as trail_services
from trails.enums import ActivityStatus, TrailStatus
from trails.models import Trail, TrailActivity, TrailSystem
from trails.timezones import zone_of

logger = logging.getLogger(__name__)

SCHEDULES_PER_SYSTEM_MAX = 200
DAYS_AHEAD_MAX = 400  # how far ahead a schedule may start
# The services take a one-off schedule's start and end as local date-times (naive), and a
# daily one's as times of day with its first and last days, as the API does.
ONCE_FIELDS = {"starts_at": ("start_date", "start_time"), "ends_at": ("end_date", "end_time")}
DAILY_FIELDS = ("start_time", "end_time", "first_date", "last_date")
TIMING = ("start_date", "start_time", "end_date", "end_time", "first_date", "last_date")
ONE_MICROSECOND = timedelta(microseconds=1)


class ScheduleFields(TypedDict, total=False):
    """A schedule's fields as the services take them, by keyword: a one-off's start and end
    as local date-times, a daily one's times of day with its first and last days."""

    trail_ids: Sequence[str]
    activity: str
    status: str
    end_status: str
    repeat: str
    starts_at: datetime | None
    ends_at: datetime | None
    start_time: time | None
    end_time: time | None
    first_date: date | None
    last_date: date | None
    reason: str


# Validation


def _live_trails(system_id: str, trail_ids: Sequence[str]) -> list[Trail]:
    if not trail_ids:
        raise Invalid("missing_field", "name at least one trail.", field="trail_ids")
    trails = list(Trail.objects.filter(trail_system_id=system_id, pk__in=trail_ids).only("id"))
    missing = set(trail_ids) - {trail.pk for trail in trails}
    if missing:
        raise NotFound("trail_not_found", f"Not trails of this system: {some_of(missing)}.")
    return trails


def _check_activity(schedule: Schedule, trails: Sequence[Trail]) -> None:
    if not schedule.activity:
        return
    having = set(
        TrailActivity.objects.filter(trail__in=trails, value=schedule.activity).values_list(
            "trail_id", flat=True
        )
    )
    lacking = [trail.pk for trail in trails if trail.pk not in having]
    if lacking:
        raise Invalid(
            "unknown_activity",
            f"{schedule.activity!r} is not on these trails: {some_of(lacking)}.",
            field="activity",
        )
    for name in ("status", "end_status"):
        if getattr(schedule, name) == TrailStatus.NONE:
            raise Invalid(
                "invalid_field", "an activity's status is Open, Caution or Closed.", field=name
            )


def _assign(schedule: Schedule, fields: Mapping) -> set[str]:
    """Set `fields` (the services' names) on the schedule; returns the names of the model's
    fields whose value changed. A new kind (repeat) starts from no times at all."""
    before = {name: getattr(schedule, name) for name in (*TIMING, "repeat", "status", "end_status")}
    repeat = fields.get("repeat", schedule.repeat)
    if repeat != schedule.repeat:
        for name in TIMING:
            setattr(schedule, name, None)
    for name, value in fields.items():
        if name in ONCE_FIELDS:
            if repeat != Repeat.ONCE:
                raise Invalid(
                    "invalid_field",
                    "only for a one-off schedule; a daily one takes its times of day.",
                    field=name,
                )
            day_name, time_name = ONCE_FIELDS[name]
            setattr(schedule, day_name, value.date() if value else None)
            setattr(schedule, time_name, value.time() if value else None)
        elif name in DAILY_FIELDS:
            if repeat != Repeat.DAILY:
                raise Invalid(
                    "invalid_field",
                    "only for a daily schedule; a one-off one takes the day and time of its start.",
                    field=name,
                )
            setattr(schedule, name, value)
        else:
            setattr(schedule, name, value)
    return {name for name, value in before.items() if getattr(schedule, name) != value}


def _check_kind(schedule: Schedule) -> None:
    """The kind's own times are complete."""
    if schedule.repeat == Repeat.ONCE:
        if schedule.start_date is None or schedule.start_time is None:
            raise Invalid("missing_field", "a one-off schedule needs its start.", field="starts_at")
    elif schedule.start_time is None:
        raise Invalid(
            "missing_field", "a daily schedule needs its time of day.", field="start_time"
        )
    if schedule.end_status and not schedule.has_end:
        raise Invalid("invalid_field", "only for a schedule with an end.", field="end_status")


def _check_times(schedule: Schedule, changed: set[str], now: datetime) -> None:
    """Changed times lie ahead: a start in the future (at most DAYS_AHEAD_MAX days ahead),
    an end after its start; a daily schedule's last day not over yet."""
    zone = zone_of(schedule.trail_system)
    local_now = now.astimezone(zone)
    where = f"(now {local_now:%Y-%m-%d %H:%M} in {zone.key})"
    latest_start = now + timedelta(days=DAYS_AHEAD_MAX)
    if schedule.repeat == Repeat.ONCE:
        start = timing.instant(schedule.start_date, schedule.start_time, zone)
        if changed & {"start_date", "start_time", "repeat"} and start <= now:
            raise Invalid("invalid_field", f"must be in the future {where}.", field="starts_at")
        if start > latest_start:
            raise Invalid(
                "invalid_field", f"at most {DAYS_AHEAD_MAX} days ahead.", field="starts_at"
            )
        if schedule.has_end:
            end = timing.instant(schedule.end_date, schedule.end_time, zone)
            if end <= start:
                raise Invalid("invalid_field", "must be after the start.", field="ends_at")
            if changed & {"end_date", "end_time"} and end <= now:
                raise Invalid("invalid_field", f"must be in the future {where}.", field="ends_at")
        return
    if schedule.has_end and schedule.end_time == schedule.start_time:
        raise Invalid("invalid_field", "must differ from the start time.", field="end_time")
    first, last = schedule.first_date, schedule.last_date
    if first and last and last < first:
        raise Invalid("invalid_field", "must not be before the first day.", field="last_date")
    if last and changed & {"last_date", "repeat"} and last < local_now.date():
        raise Invalid("invalid_field", f"must not be in the past {where}.", field="last_date")
    if first and first > latest_start.astimezone(zone).date():
        raise Invalid("invalid_field", f"at most {DAYS_AHEAD_MAX} days ahead.", field="first_date")


def _checked(schedule: Schedule, trails: Sequence[Trail], changed: set[str], now) -> None:
    _check_kind(schedule)
    _check_activity(schedule, trails)
    _check_times(schedule, changed, now)


# Writes


@transaction.atomic
def create_schedule(
    *,
    system: TrailSystem,
    actor: Actor,
    now: datetime | None = None,
    **fields: Unpack[ScheduleFields],
) -> Schedule:
    """starts_at/ends_at (repeat once) or start_time, end_time, first_date, last_date (repeat
    daily), with the other fields. Refused with the API's codes and names."""
    now = now or timezone.now()
    trail_ids = fields.pop("trail_ids", [])
    for name in ("status", "repeat"):
        if name not in fields:
            raise Invalid("missing_field", "required.", field=name)
    if Schedule.objects.filter(trail_system=system).count() >= SCHEDULES_PER_SYSTEM_MAX:
        raise Invalid(
            "too_many_schedules",
            f"A trail system has at most {SCHEDULES_PER_SYSTEM_MAX} schedules; delete one first.",
        )
    schedule = Schedule(
        trail_system=system, created_by=actor.uid, updated_by=actor.uid, armed_on=now
    )
    changed = _assign(schedule, fields)
    trails = _live_trails(system.pk, trail_ids)
    _checked(schedule, trails, changed, now)
    schedule.save(force_insert=True)
    schedule.trails.set(trails)
    return schedule


def _locked(schedule: Schedule, *, wait: bool = True) -> Schedule | None:
    return (
        Schedule.objects.select_for_update(skip_locked=not wait, of=("self",))
        .select_related("trail_system")
        .filter(pk=schedule.pk)
        .first()
    )


@transaction.atomic
def change_schedule(
    *,
    schedule: Schedule,
    actor: Actor,
    now: datetime | None = None,
    **changes: Unpack[ScheduleFields],
) -> None:
    """PATCH: the fields given. What was due already is applied first; the changed schedule
    applies only what falls due after now. A new kind (repeat) drops the old kind's times."""
    now = now or timezone.now()
    locked = _locked(schedule)
    if locked is None:
        raise NotFound("schedule_not_found", f"No schedule {schedule.pk!r}.")
    _apply_due(locked, now)
    trail_ids = changes.pop("trail_ids", None)
    changed = _assign(locked, changes)
    if trail_ids is not None:
        trails = _live_trails(locked.trail_system_id, trail_ids)
    else:
        trails = list(locked.trails.filter(trail_system_id=locked.trail_system_id))
    _checked(locked, trails, changed, now)
    locked.armed_on = now
    locked.finished_on = None
    locked.updated_on = now
    locked.updated_by = actor.uid
    locked.save()
    if trail_ids is not None:
        locked.trails.set(trails)
    _settle(locked, zone_of(locked.trail_system), now)


@transaction.atomic
def delete_schedule(*, schedule: Schedule, actor: Actor, now: datetime | None = None) -> None:
    """What was due already is applied first; the trails then stay as they are."""
    locked = _locked(schedule)
    if locked is None:
        raise NotFound("schedule_not_found", f"No schedule {schedule.pk!r}.")
    _apply_due(locked, now or timezone.now())
    locked.delete()


# Applying


def apply_due_schedules(*, now: datetime | None = None) -> int:
    """Every schedule with an occurrence due (beat, every SCHEDULE_SWEEP_SECONDS): each in
    its own transaction, a schedule another pass holds skipped (that pass applies it); and
    the closures whose start or end has come, the same way. Returns the number of
    occurrences recorded and closures started or ended."""
    now = now or timezone.now()
    recorded = settle_closures(now=now)
    for schedule_id in due_schedule_ids(now):
        try:
            recorded += len(apply_due(schedule_id=schedule_id, now=now, wait=False))
        except Exception:
            # Left due: the next pass tries again; the other schedules go on.
            logger.exception("Schedule %s not applied", schedule_id)
    return recorded


@transaction.atomic
def apply_due(*, schedule_id: str, now: datetime, wait: bool = True) -> list[ScheduleRun]:
    locked = _locked(Schedule(pk=schedule_id), wait=wait)
    if locked is None:
        return []
    return _apply_due(locked, now)


def _apply_due(schedule: Schedule, now: datetime) -> list[ScheduleRun]:
    if schedule.finished_on is not None:
        return []
    zone = zone_of(schedule.trail_system)
    last_due = schedule.runs.order_by("-due_at").values_list("due_at", flat=True).first()
    since = max(schedule.armed_on, last_due) if last_due else schedule.armed_on
    recorded = set(schedule.runs.filter(due_at__gte=since).values_list("action", "due_at"))
    due = [
        occurrence
        for occurrence in timing.occurrences(
            schedule, zone, after=since - ONE_MICROSECOND, until=now
        )
        if occurrence.due_at > schedule.armed_on
        and (occurrence.action, occurrence.due_at) not in recorded
    ]
    runs = []
    if due:
        *missed, latest = due
        runs = [_run(schedule, occurrence, Outcome.SUPERSEDED) for occurrence in missed]
        runs.append(_run(schedule, latest, Outcome.APPLIED, changes=_make(schedule, latest)))
        ScheduleRun.objects.bulk_create(runs)
    _settle(schedule, zone, now)
    return runs


def _run(schedule: Schedule, occurrence, outcome: str, changes: dict | None = None):
    return ScheduleRun(
        schedule=schedule,
        action=occurrence.action,
        due_at=occurrence.due_at,
        outcome=outcome,
        changes=changes or {},
    )


def _settle(schedule: Schedule, zone, now: datetime) -> None:
    """Finished once its last occurrence is behind it (recorded, or before armed_on)."""
    final = timing.last_occurrence(schedule, zone)
    if final is not None and final.due_at <= now and schedule.finished_on is None:
        schedule.finished_on = now
        Schedule.objects.filter(pk=schedule.pk).update(finished_on=now)


def _make(schedule: Schedule, occurrence) -> dict:
    """Make the occurrence's change; returns what changed (ScheduleRun.changes)."""
    actor = Actor(schedule.updated_by, Via.SCHEDULE)
    if occurrence.action == Action.START:
        made = _set_status(schedule, schedule.status, actor)
        window = open_window(schedule)
        return _merged(window.changes, made) if window else made
    if schedule.end_status:
        return _set_status(schedule, schedule.end_status, actor)
    return _put_back(schedule, actor)


def open_window(schedule: Schedule) -> ScheduleRun | None:
    """The applied start whose end has not been applied yet, if any."""
    latest = (
        ScheduleRun.objects.filter(schedule=schedule, outcome=Outcome.APPLIED)
        .order_by("-due_at", "-id")
        .first()
    )
    return latest if latest is not None and latest.action == Action.START else None


def _locked_trails(schedule: Schedule, trail_ids: Iterable[str] | None = None) -> list[Trail]:
    """Live trails of the schedule still in its system, locked, with their activities."""
    trails = Trail.objects.select_for_update(of=("self",)).filter(
        trail_system_id=schedule.trail_system_id
    )
    trails = (
        trails.filter(pk__in=trail_ids)
        if trail_ids is not None
        else trails.filter(schedules=schedule)
    )
    trails = list(trails.only("id", "trail_system_id", "status").order_by("pk"))
    statuses: dict[str, dict[str, str]] = {trail.pk: {} for trail in trails}
    for value, status, trail_id in TrailActivity.objects.filter(trail__in=trails).values_list(
        "value", "status", "trail_id"
    ):
        statuses[trail_id][value] = status
    for trail in trails:
        trail.activity_statuses = statuses[trail.pk]
    return trails


def _set_status(schedule: Schedule, status: str, actor: Actor) -> dict:
    """Set `status` on the schedule's trails (or on its activity of each)."""
    made = {}
    for trail in _locked_trails(schedule):
        activities = trail.activity_statuses
        entry: dict = {}
        if schedule.activity:
            current = activities.get(schedule.activity)
            if current is None or current == status:
                continue
            entry["activities"] = {schedule.activity: [current, status]}
            request = {"activities": [{"value": schedule.activity, "status": status}]}
        else:
            closing = {
                value: [current, ActivityStatus.CLOSED]
                for value, current in activities.items()
                if status == TrailStatus.CLOSED and current != ActivityStatus.CLOSED
            }
            if trail.status == status and not closing:
                continue
            if trail.status != status:
                entry["status"] = [trail.status, status]
            if closing:
                entry["activities"] = closing
            request = {"status": status}
        trail_services.change_trail(trail=trail, **request, actor=actor)
        made[trail.pk] = entry
    return made


def _put_back(schedule: Schedule, actor: Actor) -> dict:
    """The end of a window without an end status: each value the start changed goes back to
    what it was, unless it has been changed since (a person's later change stands)."""
    window = open_window(schedule)
    if window is None:
        return {}
    made = {}
    for trail in _locked_trails(schedule, window.changes.keys()):
        entry = window.changes[trail.pk]
        request: dict = {}
        undone: dict = {}
        if "status" in entry and trail.status == entry["status"][1]:
            request["status"] = entry["status"][0]
            undone["status"] = list(reversed(entry["status"]))
        back = {
            value: [changed_to, was]
            for value, (was, changed_to) in entry.get("activities", {}).items()
            if trail.activity_statuses.get(value) == changed_to
        }
        if back:
            request["activities"] = [{"value": v, "status": was} for v, (_, was) in back.items()]
            undone["activities"] = back
        if request:
            trail_services.change_trail(trail=trail, **request, actor=actor)
            made[trail.pk] = undone
    return made


def _merged(earlier: dict, later: dict) -> dict:
    """A start within an open window: each value keeps what it was before the window."""
    merged = {trail_id: {**entry} for trail_id, entry in earlier.items()}
    for trail_id, entry in later.items():
        into = merged.setdefault(trail_id, {})
        if "status" in entry:
            was = into["status"][0] if "status" in into else entry["status"][0]
            into["status"] = [was, entry["status"][1]]
        if "activities" in entry:
            activities = dict(into.get("activities", {}))
            for value, (was, now_is) in entry["activities"].items():
                activities[value] = [activities.get(value, [was])[0], now_is]
            into["activities"] = activities
    return merged
