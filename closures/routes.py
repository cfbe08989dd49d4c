"""A route check for route apps: which closed stretches and Closed trails a route runs on.

Everything is measured in metres in the local projection around the route (trails.geodesy).
The route, simplified by a metre, is cut into runs of CHUNK_POINTS points; the part of a
closed line within ON_ROUTE_METRES of a run (the run buffered: a route that runs 40 m beside
a trail is not on it) is the crossing, given as a line with its length. Only lines whose box
(kept with the trail) meets a run's box are read and measured, each projected, indexed and
cut in one vectorised call with the others."""

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
from trails.geodesy import Box, LocalProjection, group_indices, grown
from trails.geometry import lines as parts_of
from trails.geometry import published_degrees
from trails.models import Trail

ON_ROUTE_METRES = 15.0
SIMPLIFY_METRES = 1.0
# A box's edge in metres is a slight curve in degrees: cut into pieces of at most a kilometre,
# it leaves the box in degrees of its ends by less than 2 cm.
EDGE_METRES = 1000.0
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
    """The route in runs of CHUNK_POINTS points, with an index of them in metres and one of
    their boxes (grown by ON_ROUTE_METRES) in degrees. A run is buffered only when a line
    comes within ON_ROUTE_METRES of it: a ride along open trails buffers only where it meets
    a closed one."""

    def __init__(self, lines: Sequence[Line]):
        self.projection = LocalProjection.around(lines)
        simplified = shapely.simplify(self.projection.linestrings(lines), SIMPLIFY_METRES)
        chunks = []
        for part in simplified:
            coords = shapely.get_coordinates(part)
            for start in range(0, max(len(coords) - 1, 1), CHUNK_POINTS):
                chunks.append(shapely.LineString(coords[start : start + CHUNK_POINTS + 1]))
        self.chunks = np.array(chunks)
        self.index = shapely.STRtree(self.chunks)
        west, south, east, north = shapely.bounds(self.chunks).T
        grown_boxes = shapely.box(
            west - ON_ROUTE_METRES,
            south - ON_ROUTE_METRES,
            east + ON_ROUTE_METRES,
            north + ON_ROUTE_METRES,
        )
        boxes = shapely.segmentize(grown_boxes, EDGE_METRES)
        self.boxes = shapely.STRtree(self.projection.in_degrees(boxes))

    def near(self, boxes: Sequence[Box]) -> np.ndarray:
        """Which of the boxes (degrees) meet the box of a run of the route."""
        found = np.zeros(len(boxes), dtype=bool)
        if boxes:
            west, south, east, north = np.array(boxes, dtype=float).T
            found[self.boxes.query(shapely.box(west, south, east, north))[0]] = True
        return found

    def crossings(self, geometries: Sequence[dict]) -> list[Crossing | None]:
        """For each line (GeoJSON), the part of it the route runs on, if any: every line
        projected in one call, every part tested against the runs in one query, and the runs
        met buffered in one call."""
        if not geometries:
            return []
        parts = [parts_of(geometry) for geometry in geometries]
        owners = group_indices(parts)
        projected = self.projection.linestrings([part for each in parts for part in each])
        part_hits, chunk_hits = self.index.query(
            projected, predicate="dwithin", distance=ON_ROUTE_METRES
        )
        met, chunk_hits = np.unique(chunk_hits, return_inverse=True)
        areas = shapely.buffer(self.chunks[met], ON_ROUTE_METRES, quad_segs=4)
        found: list[Crossing | None] = [None] * len(geometries)
        for owner in np.unique(owners[part_hits]):
            inside = shapely.intersection(
                shapely.multilinestrings(projected[owners == owner]),
                shapely.union_all(areas[np.unique(chunk_hits[owners[part_hits] == owner])]),
            )
            found[owner] = self._crossing(inside)
        return found

    def _crossing(self, inside: shapely.Geometry) -> Crossing | None:
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


def _near(route: _Route, boxes: Sequence[tuple]) -> np.ndarray:
    """Which of the (west, south, east, north) boxes meet the route's; a trail without a box
    (none known) is measured."""
    unknown = np.array([box[0] is None for box in boxes], dtype=bool)
    found = unknown.copy()
    found[~unknown] = route.near([box for box in boxes if box[0] is not None])
    return found


def check_route(*, system_id: str, lines: Sequence[Line], now: datetime) -> RouteCheck:
    """The closures in effect and the Closed trails of the system the route runs on, each
    with the stretch of it the route covers."""
    check_size(lines)
    route = _Route(lines)
    in_effect = closures_in_effect(system_id, now)
    near = _near(
        route, [(c.trail.west, c.trail.south, c.trail.east, c.trail.north) for c in in_effect]
    )
    closures = [closure for closure, is_near in zip(in_effect, near, strict=True) if is_near]
    found = stretches(closures)
    crossed_closures = [
        (closure, found[closure.pk], crossing)
        for closure, crossing in zip(
            closures, route.crossings([found[c.pk].geometry for c in closures]), strict=True
        )
        if crossing
    ]
    box = _box(lines)
    boxes = list(
        Trail.objects.filter(
            Q(west__lte=box.east, east__gte=box.west, south__lte=box.north, north__gte=box.south)
            | Q(west=None),
            trail_system_id=system_id,
            status=TrailStatus.CLOSED,
            hidden=False,
        ).values_list("pk", "west", "south", "east", "north")
    )
    near = _near(route, [row[1:] for row in boxes])
    closed = list(
        Trail.objects.filter(
            pk__in=[row[0] for row, is_near in zip(boxes, near, strict=True) if is_near]
        ).order_by("order", "created_on", "pk")
    )
    crossed_trails = [
        (trail, crossing)
        for trail, crossing in zip(
            closed, route.crossings([t.geometry for t in closed]), strict=True
        )
        if crossing
    ]
    return RouteCheck(crossed_closures, crossed_trails)
