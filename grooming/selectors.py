"""Reads of grooming: when each trail was last groomed, and the latest passes. The public map
and the web app read these too."""

from dataclasses import dataclass
from datetime import datetime, tzinfo

from django.db.models import Count, OuterRef, Prefetch, Subquery
from django.utils import timezone

from grooming.models import GroomedTrail, GroomingPass
from trails.models import Trail, TrailSystem

PASS_LIST_LIMIT = 100


@dataclass(frozen=True)
class LastGroomed:
    trail_id: str
    name: str
    last_groomed_on: datetime
    condition: str


def last_groomed(system_id: str) -> list[LastGroomed]:
    """Every live trail of the system that was ever groomed, most recently groomed first,
    with the condition of that pass. One query."""
    latest = GroomedTrail.objects.filter(trail=OuterRef("pk")).order_by(
        "-grooming_pass__groomed_at", "-grooming_pass__created_on"
    )
    rows = (
        Trail.objects.filter(trail_system_id=system_id)
        .annotate(
            last_groomed_on=Subquery(latest.values("grooming_pass__groomed_at")[:1]),
            condition=Subquery(latest.values("grooming_pass__condition")[:1]),
        )
        .filter(last_groomed_on__isnull=False)
        .order_by("-last_groomed_on", "name", "id")
        .values_list("id", "name", "last_groomed_on", "condition")
    )
    return [LastGroomed(*row) for row in rows]


def groomed_on_day(moment: datetime, zone: tzinfo, now: datetime | None = None) -> bool:
    """Whether `moment` falls on today's date in the system's zone (MtnManager's
    groomed_today: the groomers' day, not UTC's)."""
    return moment.astimezone(zone).date() == (now or timezone.now()).astimezone(zone).date()


def last_groomed_by_trail(system_id: str) -> dict[str, LastGroomed]:
    """Trail id -> its last grooming, for pages that show "Groomed 3 h ago" per trail."""
    return {entry.trail_id: entry for entry in last_groomed(system_id)}


def recent_passes(system: TrailSystem) -> list[GroomingPass]:
    """The latest passes, newest first, each with `trail_count` (trails it groomed); the track
    geometry is left out."""
    return list(
        GroomingPass.objects.filter(trail_system=system)
        .defer("track")
        .annotate(trail_count=Count("groomed_trails"))
        .order_by("-groomed_at", "-created_on")[:PASS_LIST_LIMIT]
    )


def grooming_pass(pass_id: str) -> GroomingPass | None:
    """One pass with its track and the trails it groomed (`groomed_trails`, by coverage), for
    a page that draws the track over the trails."""
    return (
        GroomingPass.objects.filter(pk=pass_id)
        .prefetch_related(
            Prefetch(
                "groomed_trails",
                GroomedTrail.objects.select_related("trail").only(
                    "grooming_pass_id", "coverage", "update_id", "trail__id", "trail__name"
                ),
            )
        )
        .first()
    )
