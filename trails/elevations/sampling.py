"""Trail elevation profiles: 50 evenly spaced metre values along the line, sampled here.

Taken from the geometry's third coordinate when every position has one, otherwise asked of
the provider (trails.elevations.provider); computed in the background (trails.tasks) and stored
on ``Trail.elevations``; None until computed.
"""

import bisect

from core.limits import ELEVATION_MAX, ELEVATION_MIN
from trails.geodesy import WGS84
from trails.geometry import lines

SAMPLES = 50


def _stations(geometry: dict) -> tuple[list[float], list[list[float]]]:
    """Cumulative geodesic distance (m) at each position, gaps between parts not counted."""
    distances: list[float] = []
    positions: list[list[float]] = []
    total = 0.0
    for line in lines(geometry):
        for i, position in enumerate(line):
            if i:
                previous = line[i - 1]
                total += WGS84.inv(previous[0], previous[1], position[0], position[1])[2]
            distances.append(total)
            positions.append(position)
    return distances, positions


def sample(geometry: dict, count: int = SAMPLES) -> list[list[float]]:
    """`count` positions evenly spaced by distance along the line, interpolated linearly
    (the third coordinate too, when the positions on both sides have one)."""
    distances, positions = _stations(geometry)
    total = distances[-1]
    samples = []
    for k in range(count):
        target = total * k / (count - 1)
        j = min(max(bisect.bisect_left(distances, target), 1), len(distances) - 1)
        span = distances[j] - distances[j - 1]
        t = (target - distances[j - 1]) / span if span else 0.0
        a, b = positions[j - 1], positions[j]
        samples.append([a[n] + (b[n] - a[n]) * t for n in range(min(len(a), len(b)))])
    return samples


def plausible(elevation: float) -> bool:
    return ELEVATION_MIN <= elevation <= ELEVATION_MAX


def profile_from_geometry(geometry: dict) -> list[float] | None:
    """The profile from the third coordinate; None when any position lacks one or holds an
    impossible value (stored before the input bound existed), so the provider is asked."""
    if not all(len(p) >= 3 and plausible(p[2]) for line in lines(geometry) for p in line):
        return None
    return [round(p[2], 1) for p in sample(geometry)]
