"""How much of each trail a grooming track covered: pure, no database.

Everything is measured in metres in an azimuthal equidistant projection centred on the trail
system (distances from the centre are exact, and within 50 km of it the scale is off by less
than 0.002 %), so a tolerance means the same on the equator and at 60° north. A trail's
coverage is the length of it lying within the tolerance of the track (the track buffered by
the tolerance), divided by its length. An STRtree of the trails' parts keeps the intersection
to the parts near the track.
"""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely
from pyproj import CRS, Transformer

# A track is simplified by this much before it is buffered: far below GPS accuracy, and it
# drops the many near-collinear points of a 1 Hz recording.
SIMPLIFY_METRES = 1.0
# Segments of each buffer's round caps and joins: a tolerance of 15 m is then off by < 0.3 m.
BUFFER_QUAD_SEGMENTS = 4

Line = Sequence[Sequence[float]]  # [[lng, lat(, elevation)], ...]


@dataclass(frozen=True)
class Coverage:
    """How much of one trail lies within the tolerance of the track."""

    share: float  # of the trail's length, 0 to 1
    metres: float


@dataclass(frozen=True)
class TrailLines:
    """One trail as the coverage needs it: its id and its parts in [lng, lat] order."""

    trail_id: str
    lines: Sequence[Line]


class LocalProjection:
    """WGS84 longitude/latitude to metres around a centre, and the inverse."""

    def __init__(self, lng: float, lat: float):
        crs = CRS.from_proj4(f"+proj=aeqd +lat_0={lat} +lon_0={lng} +datum=WGS84 +units=m")
        self._forward = Transformer.from_crs("EPSG:4326", crs, always_xy=True)

    @classmethod
    def around(cls, lines: Sequence[Line]) -> "LocalProjection":
        """Centred on the middle of the lines' bounding box."""
        points = np.array([p[:2] for line in lines for p in line], dtype=float)
        (min_lng, min_lat), (max_lng, max_lat) = points.min(axis=0), points.max(axis=0)
        return cls((min_lng + max_lng) / 2, (min_lat + max_lat) / 2)

    def linestrings(self, lines: Sequence[Line]) -> np.ndarray:
        """Projected shapely LineStrings, one per line, in one transform call."""
        coords = np.array([p[:2] for line in lines for p in line], dtype=float)
        x, y = self._forward.transform(coords[:, 0], coords[:, 1])
        indices = np.repeat(np.arange(len(lines)), [len(line) for line in lines])
        return shapely.linestrings(np.column_stack([x, y]), indices=indices)


def track_area(projection: LocalProjection, track: Sequence[Line], tolerance: float):
    """The ground within `tolerance` metres of the track."""
    parts = shapely.simplify(projection.linestrings(track), SIMPLIFY_METRES)
    return shapely.buffer(
        shapely.multilinestrings(parts), tolerance, quad_segs=BUFFER_QUAD_SEGMENTS
    )


def coverage(
    track: Sequence[Line], trails: Sequence[TrailLines], tolerance: float
) -> dict[str, Coverage]:
    """Trail id -> how much of it lies within `tolerance` metres of the track; trails the
    track never comes near are left out."""
    parts = [line for trail in trails for line in trail.lines]
    track = [line for line in track if len(line) >= 2]
    if not parts or not track:
        return {}
    owner = np.repeat(np.arange(len(trails)), [len(trail.lines) for trail in trails])
    projection = LocalProjection.around(parts)
    trail_parts = projection.linestrings(parts)
    area = track_area(projection, track, tolerance)
    near = shapely.STRtree(trail_parts).query(area, predicate="intersects")
    if not len(near):
        return {}
    shapely.prepare(area)
    covered_lengths = shapely.length(shapely.intersection(trail_parts[near], area))
    covered = np.bincount(owner[near], weights=covered_lengths, minlength=len(trails))
    total = np.bincount(owner, weights=shapely.length(trail_parts), minlength=len(trails))
    return {
        trails[i].trail_id: Coverage(float(min(covered[i] / total[i], 1.0)), float(covered[i]))
        for i in np.unique(owner[near])
        if total[i] > 0
    }
