"""A trail system's time zone: the IANA zone its managers set, else the zone its location is in
(timezonefinder's offline boundary data), else UTC. Scheduled changes are in this zone."""

import threading
from collections.abc import Iterable
from functools import cache, lru_cache
from zoneinfo import ZoneInfo, available_timezones

from timezonefinder import TimezoneFinder

from core.errors import Invalid
from trails.models import TrailSystem
from trails.selectors import system_locations

FALLBACK = "UTC"
# Files of some zone databases that are not zones a person would choose.
NOT_ZONES = frozenset({"localtime", "Factory", "posixrules", "posix", "right"})

_finder_lock = threading.Lock()


@cache
def _finder() -> TimezoneFinder:
    return TimezoneFinder()  # reads its files as needed: not 35 MB more in every process


@cache
def known_zones() -> tuple[str, ...]:
    """Every IANA name this machine's zone data holds, sorted (the API's enum)."""
    return tuple(sorted(available_timezones() - NOT_ZONES))


def check_zone(name: str) -> str:
    """The name if it is a known IANA zone; Invalid otherwise ("" clears it: derived)."""
    if name and name not in known_zones_set():
        raise Invalid(
            "invalid_field",
            f"{name[:64]!r} is not an IANA time zone name (e.g. America/Denver).",
            field="time_zone",
        )
    return name


@cache
def known_zones_set() -> frozenset[str]:
    return frozenset(known_zones())


@lru_cache(maxsize=4096)
def zone_at(lat: float, lng: float) -> str:
    """The zone of a place; at sea, the nautical zone (Etc/GMT+10); UTC when none is found."""
    with _finder_lock:  # one finder, not safe to share between threads unguarded
        name = _finder().timezone_at(lat=lat, lng=lng)
    return name if name in known_zones_set() else FALLBACK


def zone_names(systems: Iterable[TrailSystem]) -> dict[str, str]:
    """Each system's zone name: its own, else its location's (one query at most)."""
    systems = list(systems)
    unset = [system for system in systems if not system.time_zone]
    locations = system_locations(unset) if unset else {}
    return {
        system.pk: system.time_zone
        or (zone_at(*locations[system.pk]) if locations[system.pk] else FALLBACK)
        for system in systems
    }


def zone_name(system: TrailSystem) -> str:
    return zone_names([system])[system.pk]


def zone_of(system: TrailSystem) -> ZoneInfo:
    return ZoneInfo(zone_name(system))
