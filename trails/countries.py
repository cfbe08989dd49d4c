"""The countries whose phone numbers may sign up to a trail system by text message.

A system lists them (`sms_countries`, ISO 3166-1 alpha-2 codes) or, by default, takes the
country of its location: found offline as the country of the time zone at that point
(timezonefinder's polygons follow national borders, and the IANA zone table names each
zone's country), so a ski area on a border gets its own side's country.
"""

import threading
from collections.abc import Iterable
from functools import cache, lru_cache

import pytz
from timezonefinder import TimezoneFinder

from core.errors import Invalid
from trails.models import TrailSystem
from trails.selectors import system_location

# Every ISO 3166-1 alpha-2 code (the IANA time zone database's iso3166.tab).
COUNTRY_CODES = frozenset(pytz.country_names)
_lookups = threading.Lock()  # a TimezoneFinder reads its files through shared handles


@cache
def _country_of_zone() -> dict[str, str]:
    return {zone: country for country, zones in pytz.country_timezones.items() for zone in zones}


@cache
def _finder() -> TimezoneFinder:
    return TimezoneFinder()


@lru_cache(maxsize=4096)
def country_at(lat: float, lng: float) -> str | None:
    """The country at a point, or None at sea."""
    with _lookups:
        zone = _finder().timezone_at(lat=lat, lng=lng)
    return _country_of_zone().get(zone or "")


def default_sms_countries(system: TrailSystem) -> list[str]:
    """The country of the system's location, or of its trails' centre when it has none."""
    location = system_location(system)
    country = country_at(*location) if location else None
    return [country] if country else []


def sms_countries(system: TrailSystem) -> list[str]:
    """The countries in force: the system's own list, else the default."""
    return list(system.sms_countries) or default_sms_countries(system)


def normalized_countries(codes: Iterable[str] | None) -> list[str]:
    """ISO 3166-1 alpha-2 codes, upper case, each once, in the order given; an unknown code
    is refused (400 invalid_field). None or an empty list: the default."""
    normalized: list[str] = []
    for code in codes or ():
        upper = code.strip().upper() if isinstance(code, str) else code
        if upper not in COUNTRY_CODES:
            raise Invalid(
                "invalid_field",
                f"{code!r} is not an ISO 3166-1 alpha-2 country code (such as CA, US or FR).",
                field="sms_countries",
            )
        if upper not in normalized:
            normalized.append(upper)
    return normalized
