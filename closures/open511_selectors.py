"""Reads of the Open511 feeds (closures.open511): a system's closures and notices that are in
effect, planned, or ended within ARCHIVED_FOR, and its extent; public data only, as the map
shows it (no hidden or trashed trail, nothing that names only such trails). A fixed number of
queries whatever the number of rows."""

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Max, Min, Prefetch, Q

from closures.models import Closure
from closures.open511 import ARCHIVED_FOR, extent_polygon
from closures.selectors import shown
from trails.geometry import lines, published_degrees
from trails.models import Trail
from updates.enums import UpdateType
from updates.models import Update


def open511_closures(system_id: str, now: datetime) -> list[Closure]:
    """Each with `.stretch` (closures.selectors.shown), by start."""
    since = now - ARCHIVED_FOR
    closures = (
        Closure.objects.select_related("trail")
        .filter(trail_system_id=system_id, trail__trashed_on__isnull=True, trail__hidden=False)
        .filter(
            Q(ended_on__isnull=True, ends_at__isnull=True)
            | Q(ended_on__isnull=True, ends_at__gt=since)
            | Q(ended_on__gt=since)
        )
        .order_by("starts_at", "created_on", "pk")
    )
    return shown(list(closures), now)


@dataclass(frozen=True)
class Notice:
    """A notice with the shown trails it names (none: about the whole system)."""

    update: Update
    trails: list[Trail]


def open511_notices(system_id: str, now: datetime) -> list[Notice]:
    """By posting time; each notice's trails with their geometry."""
    updates = (
        Update.objects.filter(
            trail_system_id=system_id,
            type=UpdateType.NOTICE,
            expiration_date__gt=now - ARCHIVED_FOR,
        )
        .prefetch_related(
            Prefetch("trails", Trail.objects.only("id", "name", "hidden", "geometry", "order"))
        )
        .order_by("created_on", "pk")
    )
    notices = []
    for update in updates:
        named = sorted(update.trails.all(), key=lambda trail: (trail.order, trail.pk))
        trails = [trail for trail in named if not trail.hidden]
        if named and not trails and not update.all_trails:
            continue  # only about hidden trails
        notices.append(Notice(update, [] if update.all_trails else trails))
    return notices


def trails_geography(trails: list[Trail]) -> dict:
    """The trails' lines as one GeoJSON geometry, rounded as the published files round them."""
    parts = [
        [[published_degrees(x), published_degrees(y)] for x, y, *_ in line]
        for trail in trails
        for line in lines(trail.geometry)
    ]
    if len(parts) == 1:
        return {"type": "LineString", "coordinates": parts[0]}
    return {"type": "MultiLineString", "coordinates": parts}


def system_extent(system_id: str) -> dict | None:
    """The box around the system's shown trails, as a GeoJSON Polygon; None without trails."""
    bounds = Trail.objects.filter(trail_system_id=system_id, hidden=False).aggregate(
        west=Min("west"), south=Min("south"), east=Max("east"), north=Max("north")
    )
    if any(value is None for value in bounds.values()):
        return None
    return extent_polygon(**{name: published_degrees(value) for name, value in bounds.items()})
