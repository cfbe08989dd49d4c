"""Current weather for trail systems on a paid tier, collected hourly by Celery beat.

A snapshot is stored on the system in a current-conditions format with metric units:
{observedAt, temperature (°C), apparentTemperature (°C), humidity (%), windSpeed (km/h),
windGusts (km/h), windDirection (degrees), precipitation (mm), snowfall (cm), cloudCover (%),
weatherCode (WMO), description, isDay, source}. When the provider fails, the previous snapshot
stays in place.

Providers (``WEATHER_PROVIDER``): ``open-meteo`` (the free current-weather API; production) and
``fixed`` (built-in data, no network: tests and the embedded default).
"""

import logging
from collections.abc import Sequence
from datetime import UTC, datetime

import requests
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.utils import timezone

from core.dates import iso_ms
from trails.models import TrailSystem

logger = logging.getLogger(__name__)

# Subscription plans that include weather collection.
WEATHER_TIERS = frozenset({"pro", "premium"})
TIMEOUT_SECONDS = 10
# Locations per Open-Meteo request (it takes comma-separated coordinate lists).
BATCH_SIZE = 50

OPEN_METEO_CURRENT = {
    "temperature": "temperature_2m",
    "apparentTemperature": "apparent_temperature",
    "humidity": "relative_humidity_2m",
    "windSpeed": "wind_speed_10m",
    "windGusts": "wind_gusts_10m",
    "windDirection": "wind_direction_10m",
    "precipitation": "precipitation",
    "snowfall": "snowfall",
    "cloudCover": "cloud_cover",
    "weatherCode": "weather_code",
    "isDay": "is_day",
}

# WMO weather interpretation codes, as Open-Meteo documents them.
WMO_DESCRIPTIONS = {
    0: "Clear sky",
    1: "Mainly clear",
    2: "Partly cloudy",
    3: "Overcast",
    45: "Fog",
    48: "Depositing rime fog",
    51: "Light drizzle",
    53: "Moderate drizzle",
    55: "Dense drizzle",
    56: "Light freezing drizzle",
    57: "Dense freezing drizzle",
    61: "Slight rain",
    63: "Moderate rain",
    65: "Heavy rain",
    66: "Light freezing rain",
    67: "Heavy freezing rain",
    71: "Slight snow fall",
    73: "Moderate snow fall",
    75: "Heavy snow fall",
    77: "Snow grains",
    80: "Slight rain showers",
    81: "Moderate rain showers",
    82: "Violent rain showers",
    85: "Slight snow showers",
    86: "Heavy snow showers",
    95: "Thunderstorm",
    96: "Thunderstorm with slight hail",
    99: "Thunderstorm with heavy hail",
}


class WeatherError(Exception):
    """The provider gave no usable conditions."""


class FixedWeatherProvider:
    """Built-in conditions, the same everywhere: light snow at -4 °C."""

    name = "fixed"

    def current(self, points: Sequence[tuple[float, float]]) -> list[dict]:
        return [self._conditions() for _ in points]

    def _conditions(self) -> dict:
        return snapshot(
            {
                "temperature": -4.0,
                "apparentTemperature": -9.5,
                "humidity": 86,
                "windSpeed": 14.0,
                "windGusts": 31.0,
                "windDirection": 290,
                "precipitation": 0.3,
                "snowfall": 0.21,
                "cloudCover": 100,
                "weatherCode": 71,
                "isDay": True,
            },
            observed_at=timezone.now().replace(minute=0, second=0, microsecond=0),
            source=self.name,
        )


class OpenMeteoWeatherProvider:
    """Open-Meteo's forecast API, `current` block; metric units are its defaults."""

    name = "open-meteo"

    def __init__(self, base_url: str | None = None):
        self.base_url = base_url or settings.OPEN_METEO_URL

    def current(self, points: Sequence[tuple[float, float]]) -> list[dict]:
        """Conditions at each (lat, lng) in one request; callers send at most BATCH_SIZE."""
        params = {
            "latitude": ",".join(f"{lat:.4f}" for lat, _ in points),
            "longitude": ",".join(f"{lng:.4f}" for _, lng in points),
            "current": ",".join(OPEN_METEO_CURRENT.values()),
            "timezone": "GMT",
        }
        try:
            response = requests.get(self.base_url, params=params, timeout=TIMEOUT_SECONDS)
            response.raise_for_status()
            body = response.json()
        except (requests.RequestException, ValueError) as error:
            raise WeatherError(f"Open-Meteo: {error}") from error
        # One location gives an object, several a list of them in the order asked.
        entries = body if isinstance(body, list) else [body]
        if len(entries) != len(points):
            raise WeatherError(f"Open-Meteo: {len(entries)} locations for {len(points)}")
        return [self._snapshot(entry) for entry in entries]

    def _snapshot(self, entry: dict) -> dict:
        try:
            current = entry["current"]
            values = {ours: current[theirs] for ours, theirs in OPEN_METEO_CURRENT.items()}
            observed = datetime.fromisoformat(current["time"]).replace(tzinfo=UTC)
        except (ValueError, KeyError, TypeError) as error:
            raise WeatherError(f"Open-Meteo: unexpected answer: {error!r}") from error
        values["isDay"] = bool(values["isDay"])
        return snapshot(values, observed_at=observed, source=self.name)


PROVIDERS = {"fixed": FixedWeatherProvider, "open-meteo": OpenMeteoWeatherProvider}


def get_provider() -> FixedWeatherProvider | OpenMeteoWeatherProvider:
    if settings.WEATHER_PROVIDER not in PROVIDERS:
        raise ImproperlyConfigured(f"WEATHER_PROVIDER must be one of {', '.join(PROVIDERS)}.")
    return PROVIDERS[settings.WEATHER_PROVIDER]()


def snapshot(values: dict, *, observed_at: datetime, source: str) -> dict:
    code = values.get("weatherCode")
    return {
        "observedAt": iso_ms(observed_at),
        **values,
        "description": WMO_DESCRIPTIONS.get(code, "Unknown") if code is not None else "",
        "source": source,
    }


def collects_weather(system: TrailSystem) -> bool:
    return system.subscription in WEATHER_TIERS


def collect(systems: Sequence[TrailSystem], provider=None) -> int:
    """Fetch and store the systems' conditions, BATCH_SIZE systems per provider call.

    A failed call leaves its systems' previous snapshots in place; returns how many were
    updated.
    """
    provider = provider or get_provider()
    located = [s for s in systems if s.lat is not None and s.lng is not None]
    updated = 0
    for start in range(0, len(located), BATCH_SIZE):
        batch = located[start : start + BATCH_SIZE]
        try:
            conditions = provider.current([(s.lat, s.lng) for s in batch])
        except WeatherError as error:
            logger.warning("Weather of %d systems not updated: %s", len(batch), error)
            continue
        now = timezone.now()
        for system, weather in zip(batch, conditions, strict=True):
            TrailSystem.objects.filter(pk=system.pk).update(weather=weather, weather_updated_on=now)
        updated += len(batch)
    return updated


def collect_all() -> int:
    """Collect for every active system of a weather tier; returns how many were updated."""
    systems = TrailSystem.objects.filter(inactive=False, subscription__in=WEATHER_TIERS)
    return collect(list(systems.only("pk", "lat", "lng")))


def weather_for(system: TrailSystem) -> dict | None:
    """What GET /trail-systems/:id/weather shows: the snapshot, or None off the paid tiers."""
    return system.weather if collects_weather(system) else None
