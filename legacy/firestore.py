"""Firestore-shaped encoding, the one place it is written.

Existing embeds and apps were built against Firestore documents serialized as JSON: dates as
{_seconds, _nanoseconds} and coordinates as {_latitude, _longitude}. Everything the legacy
interface answers goes through these helpers and is encoded once, by orjson.
"""

import re
from datetime import UTC, datetime, timedelta

import orjson

from trails.geometry import published_degrees

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
ONE_SECOND = timedelta(seconds=1)
# Keys that hold dates inside stored JSON (published updates, weather snapshots).
DATE_KEYS = frozenset(
    {
        "createdOn",
        "updatedOn",
        "expirationDate",
        "lastSnowDate",
        "lastSnowMakingDate",
        "observedAt",
    }
)


def timestamp(value: datetime | None) -> dict | None:
    """A Firestore Timestamp: whole seconds (floored) and a non-negative nanosecond part."""
    if value is None:
        return None
    return {
        "_seconds": (value - EPOCH) // ONE_SECOND,
        "_nanoseconds": value.microsecond * 1000,
    }


def geopoint(lat: float | None, lng: float | None) -> dict | None:
    """A Firestore GeoPoint."""
    if lat is None or lng is None:
        return None
    return {"_latitude": published_degrees(lat), "_longitude": published_degrees(lng)}


# Years written without their leading zeros ("999-01-01T...") by releases before 2026-11.
_SHORT_YEAR = re.compile(r"^(\d{1,3})-")
INT64 = range(-(2**63), 2**63)


def _parse_date(value: str) -> datetime | None:
    value = _SHORT_YEAR.sub(lambda m: f"{int(m[1]):04d}-", value)
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _as_float(value: int) -> float | None:
    try:
        return float(value)
    except OverflowError:
        return None


def with_timestamps(value):
    """A copy of stored JSON whose ISO date strings under DATE_KEYS become timestamps.

    A number stored before the input bounds existed may be an integer beyond 64 bits, which
    orjson cannot encode; it is shown as a float (null beyond a float's range)."""
    if isinstance(value, list):
        return [with_timestamps(item) for item in value]
    if isinstance(value, int) and not isinstance(value, bool) and value not in INT64:
        return _as_float(value)
    if not isinstance(value, dict):
        return value
    converted = {}
    for key, item in value.items():
        parsed = _parse_date(item) if key in DATE_KEYS and isinstance(item, str) else None
        converted[key] = timestamp(parsed) if parsed else with_timestamps(item)
    return converted


def stored_json(text: str | bytes | None) -> orjson.Fragment | None:
    """JSON text read from the database as it is, so it is not parsed and encoded again."""
    return None if text is None else orjson.Fragment(text)


def encode(document) -> bytes:
    try:
        return orjson.dumps(document)
    except TypeError:
        # An integer beyond 64 bits somewhere in stored JSON: shown as a float, never a 500.
        return orjson.dumps(with_timestamps(document))
