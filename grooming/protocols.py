"""The position protocols trackers speak, read into positions: pure, no database, no HTTP.

- OsmAnd (Traccar's name for it; OsmAnd, Traccar Client before 9, GPSLogger's custom URL, many
  vehicle units): one position per request as query or form parameters `id`, `lat`, `lon`,
  `timestamp` (seconds or milliseconds since 1970, or a date), `accuracy` (or `hdop`), ...
- Traccar Client 9's JSON: `{"location": {"timestamp", "coords": {"latitude", "longitude",
  "accuracy", ...}}, "device_id"}`; `location` may also be a list (a batch).
- OwnTracks' HTTP mode: `{"_type": "location", "lat", "lon", "tst", "acc", ...}`.
"""

import math
from collections.abc import Mapping
from datetime import UTC, datetime

from core.errors import Invalid
from core.jsdate import InvalidDate, parse_js_date
from grooming.sessions import Position

MAX_BATCH = 100  # positions in one request
# Epoch numbers above this are milliseconds (this many seconds is the year 5138).
MILLISECONDS_FROM = 1e11


class MalformedPosition(Invalid):
    """The request holds no usable position; the message says why, in English: it is read by
    whoever sets up a tracker app, in the logs of the app or of its requests."""

    def __init__(self, message: str):
        super().__init__("invalid_position", message)


def _number(value, name: str, low: float, high: float) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise MalformedPosition(f"{name}: not a number.") from None
    if not low <= number <= high:  # False for NaN too
        raise MalformedPosition(f"{name}: must be from {low:g} to {high:g}.")
    return number


def _optional_accuracy(value) -> float | None:
    if value in (None, ""):
        return None
    return _number(value, "accuracy", 0, math.inf)


def _time(value, now: datetime) -> datetime:
    """A time as trackers send it: epoch seconds or milliseconds, or a date string; absent:
    the time it arrived."""
    if value in (None, ""):
        return now
    try:
        epoch = float(value)
    except (TypeError, ValueError):
        epoch = None
    if epoch is not None:
        if not math.isfinite(epoch) or epoch < 0:
            raise MalformedPosition("timestamp: not a time.")
        seconds = epoch / 1000 if epoch >= MILLISECONDS_FROM else epoch
        try:
            return datetime.fromtimestamp(seconds, UTC)
        except (OverflowError, ValueError, OSError):
            raise MalformedPosition("timestamp: not a time.") from None
    if not isinstance(value, str):
        raise MalformedPosition("timestamp: not a time.")
    try:
        return parse_js_date(value)
    except InvalidDate:
        raise MalformedPosition(f"timestamp: {value[:40]!r} is not a time.") from None


def _position(lat, lng, recorded, accuracy, now: datetime) -> Position:
    return Position(
        lng=_number(lng, "lon", -180, 180),
        lat=_number(lat, "lat", -90, 90),
        recorded_at=_time(recorded, now),
        accuracy=_optional_accuracy(accuracy),
    )


def osmand_parameters(parameters: Mapping[str, str], now: datetime) -> Position:
    """One position of the OsmAnd protocol's query or form parameters."""
    if "lat" not in parameters or "lon" not in parameters:
        raise MalformedPosition("lat and lon are required.")
    accuracy = parameters.get("accuracy") or parameters.get("hdop")
    return _position(
        parameters["lat"], parameters["lon"], parameters.get("timestamp"), accuracy, now
    )


def traccar_json(document, now: datetime) -> list[Position]:
    """The positions of Traccar Client's JSON body (its device_id is the secret)."""
    if not isinstance(document, dict):
        raise MalformedPosition("The body must be a JSON object.")
    locations = document.get("location")
    locations = locations if isinstance(locations, list) else [locations]
    if not 1 <= len(locations) <= MAX_BATCH:
        raise MalformedPosition(f"location: 1 to {MAX_BATCH} positions.")
    positions = []
    for location in locations:
        coords = location.get("coords") if isinstance(location, dict) else None
        if not isinstance(coords, dict):
            raise MalformedPosition("location.coords is required.")
        positions.append(
            _position(
                coords.get("latitude"),
                coords.get("longitude"),
                location.get("timestamp"),
                coords.get("accuracy"),
                now,
            )
        )
    return positions


def owntracks_json(document, now: datetime) -> list[Position]:
    """The positions of an OwnTracks message (none for its other message types); a list of
    messages is read too."""
    messages = document if isinstance(document, list) else [document]
    if len(messages) > MAX_BATCH:
        raise MalformedPosition(f"At most {MAX_BATCH} messages.")
    positions = []
    for message in messages:
        if not isinstance(message, dict):
            raise MalformedPosition("A message must be a JSON object.")
        if message.get("_type") != "location":
            continue
        if "tst" not in message:
            raise MalformedPosition("tst is required.")
        positions.append(
            _position(
                message.get("lat"), message.get("lon"), message["tst"], message.get("acc"), now
            )
        )
    return positions
