"""A stretch of a trail as distances along its line, in metres: pure, no database.

The trail's line is measured in the local metric projection (trails.geodesy), its parts one
after the other (a MultiLineString's second part starts where the first one's length ends). A
place is put on the line by shapely's `line_locate_point`, a stretch cut out by `substring`;
so a closure kept as two distances follows the trail when its geometry is edited, and never
depends on a buffer around it."""

from dataclasses import dataclass

import shapely
from shapely.ops import substring

from trails.geodesy import LocalProjection
from trails.geometry import lines


@dataclass(frozen=True)
class Located:
    """A place put on the line: its distance along it and how far off the line it was."""

    along: float
    off: float


class TrailLine:
    """One trail's line, its parts projected to metres."""

    def __init__(self, geometry: dict):
        parts = lines(geometry)
        self.projection = LocalProjection.around(parts)
        self.parts = list(self.projection.linestrings(parts))
        self.starts = []
        reached = 0.0
        for part in self.parts:
            self.starts.append(reached)
            reached += part.length
        self.length = reached

    def locate(self, lng: float, lat: float) -> Located:
        """The nearest place on the line to (lng, lat)."""
        point = self.projection.point(lng, lat)
        best = min(range(len(self.parts)), key=lambda i: self.parts[i].distance(point))
        part = self.parts[best]
        return Located(
            self.starts[best] + shapely.line_locate_point(part, point), part.distance(point)
        )

    def clamp(self, metres: float) -> float:
        return min(max(metres, 0.0), self.length)

    def stretch(self, start: float, end: float) -> dict:
        """The line between two distances along it (in either order), as GeoJSON: a
        LineString, or a MultiLineString where the stretch spans parts of the line."""
        start, end = sorted((self.clamp(start), self.clamp(end)))
        pieces = []
        for part, offset in zip(self.parts, self.starts, strict=True):
            if offset + part.length < start or offset > end:
                continue
            piece = substring(part, max(start - offset, 0.0), min(end - offset, part.length))
            if isinstance(piece, shapely.LineString) and not piece.is_empty:
                pieces.append(self.projection.positions(piece))
        if len(pieces) == 1:
            return {"type": "LineString", "coordinates": pieces[0]}
        return {"type": "MultiLineString", "coordinates": pieces}
