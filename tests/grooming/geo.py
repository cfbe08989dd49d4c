"""Synthetic tracks and trails laid out in metres on the ground, and GPX written from them.

Positions come from geodesic forward steps on WGS84 (pyproj Geod), independent of the local
projection the coverage code uses.
"""

import math
import random
from datetime import datetime, timedelta
from itertools import pairwise

from pyproj import Geod

WGS84 = Geod(ellps="WGS84")
ORIGIN = (-113.95, 45.69)  # lng, lat: Lost Trail, Montana


def at(east: float, north: float, origin: tuple[float, float] = ORIGIN) -> list[float]:
    """[lng, lat] of the point `east` and `north` metres from `origin`."""
    distance = math.hypot(east, north)
    if distance == 0:
        return list(origin)
    azimuth = math.degrees(math.atan2(east, north))
    lng, lat, _ = WGS84.fwd(origin[0], origin[1], azimuth, distance)
    return [lng, lat]


def path(points_m, step: float = 5.0, origin=ORIGIN, noise=None) -> list[list[float]]:
    """A line through (east, north) metre corners, with a position every `step` metres;
    `noise(rng) -> (de, dn)` moves each position (seeded: the same every run)."""
    rng = random.Random(14)
    out = []
    for (x0, y0), (x1, y1) in pairwise(points_m):
        count = max(1, round(math.hypot(x1 - x0, y1 - y0) / step))
        for i in range(count):
            x, y = x0 + (x1 - x0) * i / count, y0 + (y1 - y0) * i / count
            dx, dy = noise(rng) if noise else (0.0, 0.0)
            out.append(at(x + dx, y + dy, origin))
    x, y = points_m[-1]
    dx, dy = noise(rng) if noise else (0.0, 0.0)
    out.append(at(x + dx, y + dy, origin))
    return out


def gps_error(low: float, high: float):
    """Each position off by `low` to `high` metres in a random direction."""

    def move(rng: random.Random) -> tuple[float, float]:
        size, angle = rng.uniform(low, high), rng.uniform(0, 2 * math.pi)
        return size * math.cos(angle), size * math.sin(angle)

    return move


def gpx(segments: list[list[list[float]]], start: datetime, *, gap=timedelta(0)) -> bytes:
    """A GPX 1.1 file of one track, one <trkseg> per segment, a point per second; `gap` is
    the time between segments."""
    moment = start
    parts = []
    for segment in segments:
        points = []
        for lng, lat in segment:
            stamp = moment.strftime("%Y-%m-%dT%H:%M:%SZ")
            points.append(f'<trkpt lat="{lat:.7f}" lon="{lng:.7f}"><time>{stamp}</time></trkpt>')
            moment += timedelta(seconds=1)
        parts.append(f"<trkseg>{''.join(points)}</trkseg>")
        moment += gap
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<gpx version="1.1" creator="tests" xmlns="http://www.topografix.com/GPX/1/1">'
        f"<trk><name>Groomer 1</name>{''.join(parts)}</trk></gpx>"
    ).encode()
