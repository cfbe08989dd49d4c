"""Trail elevation profiles: 50 evenly spaced metre values along the line.

Taken from the geometry's third coordinate when every position has one, otherwise asked of
the provider behind ``ELEVATION_PROVIDER``: ``open-meteo`` (Open-Meteo's elevation API, up to
100 points per request; production) or ``fixed`` (a built-in terrain, no network: tests and
the embedded default). Stored on ``Trail.elevations``; None until computed.
"""

import bisect
import math
from collections.abc import Sequence

import requests
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction

from config.limits import ELEVATION_MAX, ELEVATION_MIN
from trails.geometry import WGS84, lines
from trails.models import Trail

SAMPLES = 50
BATCH_SIZE = 100  # Open-Meteo's limit of coordinates per elevation request
TIMEOUT_SECONDS = 10


class ElevationError(Exception):
    """The provider gave no usable elevations."""


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


def _plausible(elevation: float) -> bool:
    return ELEVATION_MIN <= elevation <= ELEVATION_MAX


def profile_from_geometry(geometry: dict) -> list[float] | None:
    """The profile from the third coordinate; None when any position lacks one or holds an
    impossible value (stored before the input bound existed), so the provider is asked."""
    if not all(len(p) >= 3 and _plausible(p[2]) for line in lines(geometry) for p in line):
        return None
    return [round(p[2], 1) for p in sample(geometry)]


class FixedElevationProvider:
    """A smooth built-in terrain between about 500 and 2100 m."""

    def elevations(self, points: Sequence[tuple[float, float]]) -> list[float]:
        return [
            round(1300 + 500 * math.sin(lat * 40) + 300 * math.cos(lng * 40), 1)
            for lat, lng in points
        ]


class OpenMeteoElevationProvider:
    """Open-Meteo's elevation API: comma-separated coordinates in, {"elevation": [...]} out."""

    def __init__(self, base_url: str | None = None):
        self.base_url = base_url or settings.OPEN_METEO_ELEVATION_URL

    def elevations(self, points: Sequence[tuple[float, float]]) -> list[float]:
        values: list[float] = []
        for start in range(0, len(points), BATCH_SIZE):
            batch = points[start : start + BATCH_SIZE]
            params = {
                "latitude": ",".join(f"{lat:.6f}" for lat, _ in batch),
                "longitude": ",".join(f"{lng:.6f}" for _, lng in batch),
            }
            try:
                response = requests.get(self.base_url, params=params, timeout=TIMEOUT_SECONDS)
                response.raise_for_status()
                elevation = [float(v) for v in response.json()["elevation"]]
            except (requests.RequestException, ValueError, KeyError, TypeError) as error:
                raise ElevationError(f"Open-Meteo: {error}") from error
            if len(elevation) != len(batch) or not all(map(_plausible, elevation)):
                raise ElevationError(f"Open-Meteo: {elevation[:3]}... for {len(batch)} points")
            values.extend(elevation)
        return values


PROVIDERS = {"fixed": FixedElevationProvider, "open-meteo": OpenMeteoElevationProvider}


def get_provider() -> FixedElevationProvider | OpenMeteoElevationProvider:
    if settings.ELEVATION_PROVIDER not in PROVIDERS:
        raise ImproperlyConfigured(f"ELEVATION_PROVIDER must be one of {', '.join(PROVIDERS)}.")
    return PROVIDERS[settings.ELEVATION_PROVIDER]()


def compute_profile(geometry: dict, provider=None) -> list[float]:
    profile = profile_from_geometry(geometry)
    if profile is not None:
        return profile
    points = [(p[1], p[0]) for p in sample(geometry)]
    return [round(v, 1) for v in (provider or get_provider()).elevations(points)]


def store_elevations(trail_id: str, provider=None) -> bool:
    """Compute and store a trail's profile; False if the trail is gone or its geometry
    changed meanwhile (the newer change has queued its own computation)."""
    trail = Trail.objects.filter(pk=trail_id).only("geometry").first()
    if trail is None:
        return False
    profile = compute_profile(trail.geometry, provider)
    with transaction.atomic():
        current = Trail.objects.select_for_update().filter(pk=trail_id).only("geometry").first()
        if current is None or current.geometry != trail.geometry:
            return False
        Trail.objects.filter(pk=trail_id).update(elevations=profile)
    return True


def request_elevations_on_commit(trail_id: str) -> None:
    """Called, after saving, whenever a trail's geometry is set or changed: clears the old
    profile in the caller's transaction and computes the new one once it commits. A failure
    to queue is logged, never turned into a failed write."""
    from trails.tasks import compute_elevations

    Trail.objects.filter(pk=trail_id).update(elevations=None)
    transaction.on_commit(lambda: compute_elevations.delay(trail_id), robust=True)
