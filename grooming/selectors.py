"""Reads of grooming: when each trail was last groomed, and the latest passes. The public map
and the web app read these too."""

from dataclasses import dataclass
from datetime import datetime, tzinfo

from django.db.models import Count, F, OuterRef, Prefetch, Subquery, TextField
from django.db.models.functions import Cast
from django.utils import timezone

from core.dates import iso_ms
from grooming.models import GroomedTrail, GroomingPass, GroomingSession
from trails.enums import TrailType
from trails.models import Trail, TrailSystem
from updates.enums import GROOMING_CONDITIONS, UpdateType
from updates.models import Update

PASS_LIST_LIMIT = 100


@dataclass(frozen=True)
class LastGroomed:
    trail_id: str
    name: str
    last_groomed_on: datetime
    condition: str


def last_groomed(system_id: str) -> list[LastGroomed]:
    """Every live trail of the system that was ever groomed, most recently groomed first, with
    the condition it was groomed for: the later of its last pass and its last surface-conditions
    update naming a grooming condition (a groomer who posts "Groomed for classic" by hand has
    groomed the trail as surely as a track says so). The one truth the map, the feeds and the
    API tell. Three queries."""
    latest = GroomedTrail.objects.filter(trail=OuterRef("pk")).order_by(
        "-grooming_pass__groomed_at", "-grooming_pass__created_on"
    )
    rows = (
        Trail.objects.filter(trail_system_id=system_id)
        .annotate(
            last_groomed_on=Subquery(latest.values("grooming_pass__groomed_at")[:1]),
            condition=Subquery(latest.values("grooming_pass__condition")[:1]),
        )
        .values_list("id", "name", "last_groomed_on", "condition", "type")
    )
    names = {trail_id: name for trail_id, name, *_ in rows}
    groomable = [trail_id for trail_id, *_, kind in rows if kind != TrailType.LIFT]
    found = {row[0]: LastGroomed(*row[:4]) for row in rows if row[2] is not None}
    for trail_ids, updated_on, condition in _grooming_updates(system_id, names, groomable):
        for trail_id in trail_ids:
            known = found.get(trail_id)
            if known is None or known.last_groomed_on < updated_on:
                found[trail_id] = LastGroomed(trail_id, names[trail_id], updated_on, condition)
    return sorted(
        found.values(), key=lambda e: (-e.last_groomed_on.timestamp(), e.name, e.trail_id)
    )


def _grooming_updates(
    system_id: str, names: dict[str, str], groomable: list[str]
) -> list[tuple[list[str], datetime, str]]:
    """The system's surface-conditions updates that say a trail was groomed: the live trails
    each names (every one but the lifts for an update on all trails), when, and its first
    grooming condition."""
    # Read as text, so the filter runs on any database (JSON containment is PostgreSQL's).
    pattern = "|".join(f'"{condition}"' for condition in GROOMING_CONDITIONS)
    updates = list(
        Update.objects.filter(trail_system_id=system_id, type=UpdateType.SURFACE_CONDITIONS)
        .annotate(conditions_text=Cast("conditions", TextField()))
        .filter(conditions_text__regex=pattern)
        .values_list("id", "all_trails", "updated_on", "conditions")
    )
    named: dict[str, list[str]] = {}
    for update_id, trail_id in Update.trails.through.objects.filter(
        update_id__in=[update[0] for update in updates]
    ).values_list("update_id", "trail_id"):
        if trail_id in names:
            named.setdefault(update_id, []).append(trail_id)
    return [
        (
            groomable if all_trails else named.get(update_id, []),
            updated_on,
            next(value for value in conditions if value in GROOMING_CONDITIONS),
        )
        for update_id, all_trails, updated_on, conditions in updates
    ]


def groomed_on_day(moment: datetime, zone: tzinfo, now: datetime | None = None) -> bool:
    """Whether `moment` falls on today's date in the system's zone (MtnManager's
    groomed_today: the groomers' day, not UTC's)."""
    return moment.astimezone(zone).date() == (now or timezone.now()).astimezone(zone).date()


# Nordic Pulse's buckets of time since groomed, by whole days in the system's zone:
# (name, the most days ago it holds).
FRESHNESS_BUCKETS = (("today", 0), ("1-3", 3), ("4-6", 6), ("7-10", 10), ("11-14", 14))
OLDER = "older"


def freshness_bucket(moment: datetime, zone: tzinfo, now: datetime | None = None) -> str:
    """The bucket of a grooming at `moment`: today, 1-3 days ago ... 11-14, else older, by
    calendar days in the system's zone (groomed at 23:00 yesterday is 1 day, not today)."""
    today = (now or timezone.now()).astimezone(zone).date()
    days = (today - moment.astimezone(zone).date()).days
    return next((name for name, most in FRESHNESS_BUCKETS if days <= most), OLDER)


@dataclass(frozen=True)
class Groomer:
    """A machine grooming now, as the public may see it (where the system opts in)."""

    tracker_id: str
    name: str
    lng: float
    lat: float
    at: datetime

    def document(self) -> dict:
        """As /feeds/<id>/groomers.json and the live stream's `groomers` event list it."""
        return {
            "trackerId": self.tracker_id,
            "name": self.name,
            "lat": round(self.lat, 6),
            "lng": round(self.lng, 6),
            "at": iso_ms(self.at),
        }


def groomers_now(system: TrailSystem) -> list[Groomer]:
    """The trackers with a running session and where they last were; none unless the system
    shows groomers live. One query at most."""
    if not system.groomers_live:
        return []
    return groomers_shown([system.pk]).get(system.pk, [])


def groomers_shown(system_ids: list[str]) -> dict[str, list[Groomer]]:
    """groomers_now of each of the systems (the live map's hub asks for several at once);
    a system that does not show groomers live is left out. One query."""
    rows = (
        GroomingSession.objects.filter(
            tracker__trail_system_id__in=system_ids,
            tracker__trail_system__groomers_live=True,
            ended_on__isnull=True,
        )
        .order_by("tracker__name", "tracker_id")
        .values_list(
            "tracker__trail_system_id",
            "tracker_id",
            "tracker__name",
            "last_lng",
            "last_lat",
            "last_position_at",
        )
    )
    shown: dict[str, list[Groomer]] = {}
    for system_id, *groomer in rows:
        shown.setdefault(system_id, []).append(Groomer(*groomer))
    return shown


def latest_session_trails(tracker_id: str) -> tuple[bool, list[str]]:
    """Whether the tracker is grooming now, and the names of the trails its latest session
    marked groomed so far (the recorder page's "trails marked")."""
    session = (
        GroomingSession.objects.filter(tracker_id=tracker_id)
        .order_by("-started_at")
        .only("grooming_pass_id", "ended_on")
        .first()
    )
    if session is None:
        return False, []
    names = GroomedTrail.objects.filter(grooming_pass_id=session.grooming_pass_id).order_by(
        "trail__name"
    )
    return session.ended_on is None, list(names.values_list("trail__name", flat=True))


def last_groomed_by_trail(system_id: str) -> dict[str, LastGroomed]:
    """Trail id -> its last grooming, for pages that show "Groomed 3 h ago" per trail."""
    return {entry.trail_id: entry for entry in last_groomed(system_id)}


def recent_passes(system: TrailSystem) -> list[GroomingPass]:
    """The latest passes, newest first, each with `trail_count` (trails it groomed) and
    `tracker_name` (the machine whose session it was; None for an upload); the track geometry
    is left out."""
    return list(
        GroomingPass.objects.filter(trail_system=system)
        .defer("track")
        .annotate(trail_count=Count("groomed_trails"), tracker_name=F("session__tracker__name"))
        .order_by("-groomed_at", "-created_on")[:PASS_LIST_LIMIT]
    )


def grooming_pass(pass_id: str) -> GroomingPass | None:
    """One pass with its track and the trails it groomed (`groomed_trails`, by coverage), for
    a page that draws the track over the trails; `tracker_name` as recent_passes has it."""
    return (
        GroomingPass.objects.filter(pk=pass_id)
        .annotate(tracker_name=F("session__tracker__name"))
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
