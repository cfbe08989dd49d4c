"""Reads of closures: one closure, a system's lists, the closures in effect, and each one's
stretch measured on its trail's current line."""

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q, QuerySet

from closures.models import Closure
from closures.stretches import TrailLine
from core.errors import NotFound
from trails.geometry import published_degrees


@dataclass(frozen=True)
class Stretch:
    """A closure's stretch on the trail's line as it is now (a shorter line clamps it)."""

    geometry: dict
    from_meters: float
    to_meters: float

    @property
    def length_meters(self) -> float:
        return self.to_meters - self.from_meters


def _published(geometry: dict) -> dict:
    """Coordinates rounded as the published files round them."""

    def rounded(line: list) -> list:
        return [[published_degrees(x), published_degrees(y)] for x, y in line]

    if geometry["type"] == "LineString":
        return {"type": "LineString", "coordinates": rounded(geometry["coordinates"])}
    return {"type": geometry["type"], "coordinates": [rounded(p) for p in geometry["coordinates"]]}


def stretch_on(line: TrailLine, closure: Closure) -> Stretch:
    start = line.clamp(closure.from_meters)
    end = line.length if closure.to_meters is None else line.clamp(closure.to_meters)
    return Stretch(_published(line.stretch(start, end)), start, end)


def stretches(closures: list[Closure]) -> dict[str, Stretch]:
    """Closure id -> its stretch, each trail's line measured once (the trail's geometry is
    read with the closures)."""
    lines: dict[str, TrailLine] = {}
    found = {}
    for closure in closures:
        line = lines.get(closure.trail_id)
        if line is None:
            line = lines[closure.trail_id] = TrailLine(closure.trail.geometry)
        found[closure.pk] = stretch_on(line, closure)
    return found


def _closures() -> QuerySet[Closure]:
    return Closure.objects.select_related("trail").filter(trail__trashed_on__isnull=True)


def in_effect(now: datetime) -> Q:
    return Q(ended_on__isnull=True, starts_at__lte=now) & (
        Q(ends_at__isnull=True) | Q(ends_at__gt=now)
    )


def closure_or_404(closure_id: str) -> Closure:
    closure = _closures().filter(pk=closure_id).first()
    if closure is None:
        raise NotFound("closure_not_found", f"No closure {closure_id!r}.")
    return closure


def closures_of_system(system_id: str, now: datetime, *, ended: bool = False) -> list[Closure]:
    """In effect and planned, by start; with `ended`, those that ended too."""
    closures = _closures().filter(trail_system_id=system_id)
    if not ended:
        closures = closures.filter(ended_on__isnull=True).filter(
            Q(ends_at__isnull=True) | Q(ends_at__gt=now)
        )
    return list(closures.order_by("starts_at", "created_on", "pk"))


def closures_in_effect(system_id: str, now: datetime) -> list[Closure]:
    return list(
        _closures()
        .filter(in_effect(now), trail_system_id=system_id, trail__hidden=False)
        .order_by("starts_at", "created_on", "pk")
    )


def closures_of_trail(trail_id: str, now: datetime) -> list[Closure]:
    """In effect and planned on one trail (the board's and the trail page's list)."""
    return list(
        _closures()
        .filter(trail_id=trail_id, ended_on__isnull=True)
        .filter(Q(ends_at__isnull=True) | Q(ends_at__gt=now))
        .order_by("starts_at", "created_on", "pk")
    )


def shown(closures: list[Closure], now: datetime) -> list[Closure]:
    """Each closure with `.stretch` and `.active` (in effect at `now`), as lists show them."""
    found = stretches(closures)
    for closure in closures:
        closure.stretch = found[closure.pk]
        closure.active = closure.is_active(now)
    return closures


def closed_stretches(system_id: str, now: datetime) -> dict[str, bool]:
    """Trail id -> whether a closure in effect is of the whole trail, for each trail with one
    (the lists' "Partly closed"; no geometry read)."""
    closed: dict[str, bool] = {}
    rows = (
        Closure.objects.filter(in_effect(now), trail_system_id=system_id)
        .filter(trail__trashed_on__isnull=True)
        .values_list("trail_id", "from_meters", "to_meters")
    )
    for trail_id, start, end in rows:
        closed[trail_id] = closed.get(trail_id, False) or (start == 0 and end is None)
    return closed
