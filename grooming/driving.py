"""How long and how far a machine drove on one pass: pure, no database.

The grooming log reports these per session. Engine hours are not known: the time between the
first and the last recorded position is the nearest we have, less every pause longer than
PAUSE (a machine parked at the shop between two runs), which is left out and counted so the
log can say so. Distances are geodesic on WGS84, as every distance of the service."""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import pairwise

import numpy as np

from trails.geodesy import WGS84

PAUSE = timedelta(minutes=15)


@dataclass(frozen=True)
class Driving:
    """A pass's times and distance; the times are None for a track recorded without them."""

    started_at: datetime | None
    ended_at: datetime | None
    active_seconds: float | None
    pauses: int
    paused_seconds: float
    driven_meters: float


def driven_meters(lines: Sequence[Sequence[Sequence[float]]]) -> float:
    """The geodesic length of every line, end to end ([lng, lat(, elevation)] positions)."""
    total = 0.0
    for line in lines:
        if len(line) < 2:
            continue
        positions = np.asarray([position[:2] for position in line], dtype=float)
        total += WGS84.line_length(positions[:, 0], positions[:, 1])
    return float(total)


def driving(lines: Sequence[Sequence[Sequence[float]]], times: Sequence[datetime]) -> Driving:
    """The pass's figures from its lines and its positions' times (in any order)."""
    meters = driven_meters(lines)
    if not times:
        return Driving(None, None, None, 0, 0.0, meters)
    ordered = sorted(times)
    gaps = [later - earlier for earlier, later in pairwise(ordered)]
    paused = [gap for gap in gaps if gap > PAUSE]
    paused_seconds = sum(gap.total_seconds() for gap in paused)
    active = (ordered[-1] - ordered[0]).total_seconds() - paused_seconds
    return Driving(ordered[0], ordered[-1], active, len(paused), paused_seconds, meters)
