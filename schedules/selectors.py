"""Reads of schedules: a system's list (a fixed number of queries), one schedule, the ones with
something due, and each one's state (in effect, next change) for the API, the web app, the
public map and the calendar feed."""

from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from django.db.models import Max, OuterRef, Prefetch, QuerySet, Subquery

from core.errors import NotFound
from schedules.models import Action, Outcome, Schedule, ScheduleRun
from schedules.occurrences import Occurrence, next_occurrence, occurrences
from trails.models import Trail, TrailSystem
from trails.selectors import HEAVY_SYSTEM_FIELDS
from trails.timezones import zone_names

SHOWN_TRAIL_FIELDS = ("id", "name", "hidden", "status", "trail_system_id", "order", "created_on")


@dataclass(frozen=True)
class State:
    zone: ZoneInfo
    in_effect: bool  # its start was applied and its end not yet
    since: datetime | None  # when the start in effect fell due
    next: Occurrence | None  # the next change, however far ahead


def with_last_applied(schedules: QuerySet[Schedule]) -> QuerySet[Schedule]:
    """Each schedule with `last_action` and `last_applied_at`: its latest applied run's."""
    applied = ScheduleRun.objects.filter(schedule=OuterRef("pk"), outcome=Outcome.APPLIED).order_by(
        "-due_at", "-id"
    )
    return schedules.annotate(
        last_action=Subquery(applied.values("action")[:1]),
        last_applied_at=Subquery(applied.values("due_at")[:1]),
    )


def schedules_queryset() -> QuerySet[Schedule]:
    """With the system, the live trails (no geometry) and the latest applied run."""
    return with_last_applied(
        Schedule.objects.select_related("trail_system")
        .defer(*HEAVY_SYSTEM_FIELDS)
        .prefetch_related(
            Prefetch(
                "trails",
                Trail.objects.only(*SHOWN_TRAIL_FIELDS).order_by("order", "created_on", "id"),
            )
        )
    )


def with_states(schedules: list[Schedule], now: datetime) -> list[Schedule]:
    """Each schedule gets `.state` (State) and `.shown_trails` (its live trails still in its
    system)."""
    zones = zone_names({s.trail_system_id: s.trail_system for s in schedules}.values())
    for schedule in schedules:
        zone = ZoneInfo(zones[schedule.trail_system_id])
        in_effect = schedule.last_action == Action.START
        schedule.state = State(
            zone=zone,
            in_effect=in_effect,
            since=schedule.last_applied_at if in_effect else None,
            next=None
            if schedule.finished_on
            else next_occurrence(schedule, zone, after=max(now, schedule.armed_on)),
        )
        schedule.shown_trails = [
            trail
            for trail in schedule.trails.all()
            if trail.trail_system_id == schedule.trail_system_id
        ]
    return schedules


def schedules_of_system(system: TrailSystem, now: datetime) -> list[Schedule]:
    """Next change first (those in effect among them), finished ones last, newest first."""
    schedules = with_states(list(schedules_queryset().filter(trail_system=system)), now)
    return sorted(
        schedules,
        key=lambda s: (s.state.next is None, s.state.next.due_at if s.state.next else now),
    )


def schedule_or_404(system: TrailSystem, schedule_id: str, now: datetime) -> Schedule:
    schedule = schedules_queryset().filter(trail_system=system, pk=schedule_id).first()
    if schedule is None:
        raise NotFound("schedule_not_found", f"No schedule {schedule_id!r} in this system.")
    return with_states([schedule], now)[0]


def due_schedule_ids(now: datetime) -> list[str]:
    """The unfinished schedules with an occurrence due after what they last recorded: two
    queries, whatever the number of schedules, then the times in Python."""
    schedules = list(
        Schedule.objects.filter(finished_on__isnull=True)
        .select_related("trail_system")
        .only(
            "id", "repeat", "start_date", "start_time", "end_date", "end_time", "first_date",
            "last_date", "armed_on", "trail_system__id", "trail_system__lat",
            "trail_system__lng", "trail_system__time_zone",
        )
        .annotate(last_due=Max("runs__due_at"))
    )  # fmt: skip
    zones = zone_names({s.trail_system_id: s.trail_system for s in schedules}.values())
    return [
        schedule.pk
        for schedule in schedules
        if occurrences(
            schedule,
            ZoneInfo(zones[schedule.trail_system_id]),
            after=max(schedule.armed_on, schedule.last_due or schedule.armed_on),
            until=now,
        )
    ]
