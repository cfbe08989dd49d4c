"""How much of each trail a grooming track covered: pure, no database.

Everything is measured in metres in an azimuthal equidistant projection centred on the trail
system (distances from the centre are exact, and within 50 km of it the scale is off by less
than 0.002 %), so a tolerance means the same on the equator and at 60° north. A trail's
coverage is the length of it lying within the tolerance of the track (the track buffered by
the tolerance), divided by its length. An STRtree of the buffered pieces of the track keeps
the intersections to the trail parts near it.
"""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely

from trails.geodesy import Line, LocalProjection, group_indices

# A track is simplified by this much before it is buffered: far below GPS accuracy, and it
# drops the many near-collinear points of a 1 Hz recording.
SIMPLIFY_METRES = 1.0
# Segments of each buffer's round caps and joins: a tolerance of 15 m is then off by < 0.3 m.
BUFFER_QUAD_SEGMENTS = 4
# Track points per buffered piece (see track_areas).
CHUNK_POINTS = 100


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


def track_areas(projection: LocalProjection, track: Sequence[Line], tolerance: float) -> np.ndarray:
    """The ground within `tolerance` metres of the track, as one polygon per run of
    CHUNK_POINTS points: buffering a long noisy track whole spends its time merging the
    overlaps of its zigzags, and the pieces need no merging, only their coverage does."""
    chunks = []
    for part in shapely.simplify(projection.linestrings(track), SIMPLIFY_METRES):
        coords = shapely.get_coordinates(part)
        for start in range(0, max(len(coords) - 1, 1), CHUNK_POINTS):
            chunks.append(coords[start : start + CHUNK_POINTS + 1])
    lines = shapely.linestrings(np.concatenate(chunks), indices=group_indices(chunks))
    return shapely.buffer(lines, tolerance, quad_segs=BUFFER_QUAD_SEGMENTS)


def _union_length(intervals: list[tuple[float, float]]) -> float:
    """Total length of the union of [start, end] intervals."""
    total, reached = 0.0, -np.inf
    for start, end in sorted(intervals):
        if end > reached:
            total += end - max(start, reached)
            reached = end
    return total


def covered_lengths(trail_parts: np.ndarray, areas: np.ndarray) -> np.ndarray:
    """Metres of each trail part inside any of the areas. Each piece of a part cut by an
    area becomes an interval along the part, placed by its midpoint (a piece's ends can sit
    where a looping trail crosses itself), and overlapping intervals count once."""
    part_index, area_index = shapely.STRtree(areas).query(trail_parts, predicate="intersects")
    pieces, owner = shapely.get_parts(
        shapely.intersection(trail_parts[part_index], areas[area_index]), return_index=True
    )
    is_line = shapely.get_type_id(pieces) == 1
    pieces, part_index = pieces[is_line], part_index[owner[is_line]]
    lengths = shapely.length(pieces)
    middles = shapely.line_locate_point(
        trail_parts[part_index], shapely.line_interpolate_point(pieces, 0.5, normalized=True)
    )
    intervals: dict[int, list[tuple[float, float]]] = {}
    for part, middle, length in zip(part_index, middles, lengths, strict=True):
        intervals.setdefault(int(part), []).append((middle - length / 2, middle + length / 2))
    covered = np.zeros(len(trail_parts))
    for part, spans in intervals.items():
        covered[part] = _union_length(spans)
    return covered


def coverage(
    track: Sequence[Line], trails: Sequence[TrailLines], tolerance: float
) -> dict[str, Coverage]:
    """Trail id -> how much of it lies within `tolerance` metres of the track; trails the
    track never comes near are left out."""
    parts = [line for trail in trails for line in trail.lines]
    track = [line for line in track if len(line) >= 2]
    if not parts or not track:
        return {}
    owner = group_indices([trail.lines for trail in trails])
    projection = LocalProjection.around(parts)
    trail_parts = projection.linestrings(parts)
    covered_parts = covered_lengths(trail_parts, track_areas(projection, track, tolerance))
    lengths = shapely.length(trail_parts)
    covered = np.bincount(owner, weights=np.minimum(covered_parts, lengths), minlength=len(trails))
    total = np.bincount(owner, weights=lengths, minlength=len(trails))
    return {
        trails[i].trail_id: Coverage(float(min(covered[i] / total[i], 1.0)), float(covered[i]))
        for i in np.flatnonzero(covered)
        if total[i] > 0
    }
