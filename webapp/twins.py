"""Trails of one system that share a name ("twins": the demo has two Broadway and four
Whoopee): the words that tell each from the others on the board, in the pickers and in the
lists (its categories, difficulty and length, and where it lies among its twins), and a small
map of the twins with this one drawn bold."""

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.utils.formats import number_format
from django.utils.html import escape
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from trails.geodesy import longitude_scale
from trails.models import Trail

# Where a trail lies from the middle of its twins, clockwise from north.
COMPASS = (
    gettext_lazy("north part"),
    gettext_lazy("north-east part"),
    gettext_lazy("east part"),
    gettext_lazy("south-east part"),
    gettext_lazy("south part"),
    gettext_lazy("south-west part"),
    gettext_lazy("west part"),
    gettext_lazy("north-west part"),
)
# The columns the words are made of (a queryset's .only() for them).
TWIN_FIELDS = (
    "pk",
    "name",
    "trail_system_id",
    "categories",
    "difficulty",
    "distance",
    "lat",
    "lng",
)
MAP_SIZE = 120  # px, the small map's side


def _key(trail: Trail) -> tuple[str, str]:
    return trail.trail_system_id, " ".join(trail.name.split()).casefold()


def twin_groups(trails: Iterable[Trail]) -> list[list[Trail]]:
    """The trails grouped by system and name (case and spaces aside), groups of two or more."""
    groups: dict[tuple[str, str], list[Trail]] = defaultdict(list)
    for trail in trails:
        groups[_key(trail)].append(trail)
    return [group for group in groups.values() if len(group) > 1]


def _length(trail: Trail, decimals: int) -> str:
    return f"{number_format(round(trail.distance or 0, decimals), decimals)} km"


def _part(trail: Trail, twins: Sequence[Trail]) -> str:
    """ "north-west part": the bearing from the middle of the twins' centres to this one's."""
    placed = [t for t in twins if t.lat is not None and t.lng is not None]
    if trail.lat is None or trail.lng is None or len(placed) < 2:
        return ""
    lat = sum(t.lat for t in placed) / len(placed)
    lng = sum(t.lng for t in placed) / len(placed)
    north, east = trail.lat - lat, (trail.lng - lng) * longitude_scale(lat)
    if abs(north) + abs(east) < 1e-6:
        return ""
    sector = round(math.degrees(math.atan2(east, north)) % 360 / 45) % 8
    return str(COMPASS[sector])


def twin_details(trails: Iterable[Trail]) -> dict[str, str]:
    """For each trail that shares its name with another of its system: "Nordic · Circle ·
    0.34 km · west part". The length has two decimals where one leaves twins alike."""
    details = {}
    for twins in twin_groups(trails):
        short = {_length(t, 1) for t in twins}
        decimals = 1 if len(short) == len(twins) else 2
        for trail in twins:
            words = [
                ", ".join(trail.categories or []),
                trail.get_difficulty_display() if trail.difficulty else "",
                _length(trail, decimals),
                _part(trail, twins),
            ]
            details[trail.pk] = " · ".join(word for word in words if word)
    return details


@dataclass
class _Frame:
    """Longitude and latitude to the small map's pixels (north up, metres alike both ways)."""

    west: float
    north: float
    scale: float
    shrink: float

    @classmethod
    def around(cls, positions: list[Sequence[float]]) -> "_Frame":
        lngs, lats = [p[0] for p in positions], [p[1] for p in positions]
        shrink = longitude_scale((min(lats) + max(lats)) / 2)
        span = max((max(lngs) - min(lngs)) * shrink, max(lats) - min(lats), 1e-5)
        return cls(min(lngs), max(lats), (MAP_SIZE - 12) / span, shrink)

    def point(self, position: Sequence[float]) -> str:
        x = 6 + (position[0] - self.west) * self.shrink * self.scale
        y = 6 + (self.north - position[1]) * self.scale
        return f"{x:.1f},{y:.1f}"


def _lines(geometry: dict | None) -> list[list[Sequence[float]]]:
    if not geometry:
        return []
    if geometry.get("type") == "LineString":
        return [geometry["coordinates"]]
    return list(geometry.get("coordinates") or [])


def twin_maps(twins_of: dict[str, list[str]], geometries: dict[str, dict]) -> dict[str, str]:
    """A small SVG map per trail: its twins thin and grey, itself thick, north up. `twins_of`
    names each trail's group (itself included); `geometries` their GeoJSON geometries."""
    maps = {}
    for trail_id, group in twins_of.items():
        lines = {member: _lines(geometries.get(member)) for member in group}
        positions = [p for parts in lines.values() for line in parts for p in line]
        if not positions:
            continue
        frame = _Frame.around(positions)
        drawn = sorted(group, key=lambda member: member == trail_id)  # itself on top
        paths = "".join(
            f'<polyline points="{" ".join(frame.point(p) for p in line)}" '
            f'class="{"twin-self" if member == trail_id else "twin-other"}"/>'
            for member in drawn
            for line in lines[member]
        )
        label = escape(_("Where this trail lies among the trails of the same name"))
        maps[trail_id] = (
            f'<svg class="twin-svg" viewBox="0 0 {MAP_SIZE} {MAP_SIZE}" width="{MAP_SIZE}" '
            f'height="{MAP_SIZE}" role="img" aria-label="{label}">{paths}</svg>'
        )
    return maps
