"""A route check for route apps: which closed stretches and Closed trails a route runs on.

Everything is measured in metres in the local projection around the route (trails.geodesy).
The route, simplified by a metre, is cut into runs of CHUNK_POINTS points, each buffered by
ON_ROUTE_METRES (a route that runs 40 m beside a trail is not on it); the part of a closed
line inside those areas is the crossing, given as a line with its length. Only lines whose
box comes near the route's box are read."""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np
import shapely
from django.db.models import Q

from closures.models import Closure
from closures.selectors import Stretch, closures_in_effect, stretches
from core import limits
from core.errors import Invalid
from trails.enums import TrailStatus
from trails.geodesy import Box, LocalProjection, grown
from trails.geometry import lines as parts_of
from trails.geometry import published_degrees
from trails.models import Trail

ON_ROUTE_METRES = 15.0
SIMPLIFY_METRES = 1.0
CHUNK_POINTS = 100
# Positions of one route: a day's ride at one a second is 30,000.
ROUTE_POSITIONS_MAX = 50_000
ROUTE_BYTES_MAX = limits.REQUEST_BODY_MAX

Line = Sequence[Sequence[float]]


@dataclass(frozen=True)
class Crossing:
    geometry: dict
    length_meters: float


@dataclass(frozen=True)
class RouteCheck:
    closures: list[tuple[Closure, Stretch, Crossing]]
    closed_trails: list[tuple[Trail, Crossing]]


def check_size(lines: Sequence[Line]) -> None:
    positions = sum(len(line) for line in lines)
    if positions > ROUTE_POSITIONS_MAX:
        raise Invalid(
            "route_too_long",
            f"The route has {positions} positions; at most {ROUTE_POSITIONS_MAX} are checked "
            "(simplify it, or split it).",
        )


class _Route:
    """The ground within ON_ROUTE_METRES of the route, in pieces, with an index of them."""

    def __init__(self, lines: Sequence[Line]):
        self.projection = LocalProjection.around(lines)
        chunks = []
        for part in shapely.simplify(self.projection.linestrings(lines), SIMPLIFY_METRES):
            coords = shapely.get_coordinates(part)
            for start in range(0, max(len(coords) - 1, 1), CHUNK_POINTS):
                chunks.append(shapely.LineString(coords[start : start + CHUNK_POINTS + 1]))
        self.areas = shapely.buffer(np.array(chunks), ON_ROUTE_METRES, quad_segs=4)
        self.index = shapely.STRtree(self.areas)

    def crossing(self, geometry: dict) -> Crossing | None:
        parts = self.projection.linestrings(parts_of(geometry))
        near = self.index.query(parts, predicate="intersects")[1]
        if not len(near):
            return None
        inside = shapely.intersection(
            shapely.MultiLineString(list(parts)), shapely.union_all(self.areas[np.unique(near)])
        )
        pieces = [p for p in shapely.get_parts(shapely.line_merge(inside)) if p.length > 0]
        if not pieces:
            return None
        lines = [
            [[published_degrees(x), published_degrees(y)] for x, y in self.projection.positions(p)]
            for p in pieces
        ]
        shape = (
            {"type": "LineString", "coordinates": lines[0]}
            if len(lines) == 1
            else {"type": "MultiLineString", "coordinates": lines}
        )
        return Crossing(shape, round(sum(p.length for p in pieces), 1))


def _box(lines: Sequence[Line]) -> Box:
    lngs = [p[0] for line in lines for p in line]
    lats = [p[1] for line in lines for p in line]
    return grown(Box(min(lngs), min(lats), max(lngs), max(lats)), 2 * ON_ROUTE_METRES)


def check_route(*, system_id: str, lines: Sequence[Line], now: datetime) -> RouteCheck:
    """The closures in effect and the Closed trails of the system the route runs on, each
    with the stretch of it the route covers."""
    check_size(lines)
    route = _Route(lines)
    box = _box(lines)
    closures = [c for c in closures_in_effect(system_id, now) if _near(c.trail, box)]
    found = stretches(closures)
    crossed_closures = [
        (closure, found[closure.pk], crossing)
        for closure in closures
        if (crossing := route.crossing(found[closure.pk].geometry))
    ]
    closed = Trail.objects.filter(
        Q(west__lte=box.east, east__gte=box.west, south__lte=box.north, north__gte=box.south)
        | Q(west=None),
        trail_system_id=system_id,
        status=TrailStatus.CLOSED,
        hidden=False,
    ).order_by("order", "created_on", "pk")
    crossed_trails = [
        (trail, crossing) for trail in closed if (crossing := route.crossing(trail.geometry))
    ]
    return RouteCheck(crossed_closures, crossed_trails)


def _near(trail: Trail, box: Box) -> bool:
    return trail.west is None or (
        trail.west <= box.east
        and trail.east >= box.west
        and trail.south <= box.north
        and trail.north >= box.south
    )
