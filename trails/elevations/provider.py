"""Where elevations come from, chosen by ``ELEVATION_PROVIDER``: ``open-meteo`` (Open-Meteo's
elevation API, up to 100 points per request; production) or ``fixed`` (a built-in terrain, no
network: tests and the embedded default)."""

import math
from collections.abc import Sequence

import requests
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

BATCH_SIZE = 100  # Open-Meteo's limit of coordinates per elevation request
TIMEOUT_SECONDS = 10


class ElevationError(Exception):
    """The provider gave no usable elevations."""


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
            if len(elevation) != len(batch):
                raise ElevationError(f"Open-Meteo: {len(elevation)} values for {len(batch)}")
            values.extend(elevation)
        return values


PROVIDERS = {"fixed": FixedElevationProvider, "open-meteo": OpenMeteoElevationProvider}


def get_provider() -> FixedElevationProvider | OpenMeteoElevationProvider:
    if settings.ELEVATION_PROVIDER not in PROVIDERS:
        raise ImproperlyConfigured(f"ELEVATION_PROVIDER must be one of {', '.join(PROVIDERS)}.")
    return PROVIDERS[settings.ELEVATION_PROVIDER]()
