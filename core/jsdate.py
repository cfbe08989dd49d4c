"""Request dates in every form JavaScript's `Date` constructor reads (V8's parser).

Callers of the interface build dates with `new Date(...)` and send them as strings, so the
server accepts what V8 accepts: ISO 8601 (the ES date-time format) first, then V8's legacy
parser (RFC 2822 and `toUTCString()` forms, "Jan 2, 2030 10:00 GMT", "1/2/2030", ...).
A date or date-time without a zone is read as UTC, the server's zone: V8 reads zone-less
date-times in the local zone, which is UTC on the server.
"""

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

_ISO = re.compile(
    r"^(?P<year>[+-]\d{6}|\d{4})(?:-(?P<month>\d\d)(?:-(?P<day>\d\d))?)?"
    r"(?:[Tt](?P<hour>\d\d):(?P<minute>\d\d)(?::(?P<second>\d\d)(?:\.(?P<fraction>\d+))?)?"
    r"(?P<zone>[Zz]|[+-]\d\d:\d\d)?)?$"
)
_TOKEN = re.compile(r"\s+|\d+|[A-Za-z]+|\(|.", re.S)

_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
_ZONES = {
    "ut": 0, "utc": 0, "z": 0, "gmt": 0,
    "cdt": -5, "cst": -6, "edt": -4, "est": -5, "mdt": -6, "mst": -7, "pdt": -7, "pst": -8,
}  # fmt: skip
_AM_PM = {"am": 0, "pm": 12}


class InvalidDate(ValueError):
    """The string is not a date JavaScript's Date would read."""


def parse_js_date(text: str) -> datetime:
    """An aware UTC datetime, or InvalidDate."""
    text = text.strip()
    match = _ISO.match(text)
    if match:
        return _from_iso(match)
    return _from_legacy(text)


def _build(year, month, day, hour=0, minute=0, second=0, ms=0, offset_minutes=0) -> datetime:
    valid = 1 <= month <= 12 and 1 <= day <= 31 and 0 <= minute <= 59 and 0 <= second <= 59
    if not valid or not 0 <= ms <= 999:
        raise InvalidDate("Date out of range.")
    if not 0 <= hour <= 23 and (hour, minute, second, ms) != (24, 0, 0, 0):
        raise InvalidDate("Hour out of range.")
    try:
        # V8 rolls a day past the month's end over into the next month (Feb 30 -> Mar 2).
        start = datetime(year, month, 1, tzinfo=UTC)
        return start + timedelta(
            days=day - 1,
            hours=hour,
            minutes=minute - offset_minutes,
            seconds=second,
            milliseconds=ms,
        )
    except (ValueError, OverflowError) as error:
        raise InvalidDate("Date out of range.") from error


def _from_iso(match: re.Match) -> datetime:
    parts = match.groupdict()
    fraction = (parts["fraction"] or "0")[:3].ljust(3, "0")
    zone = parts["zone"]
    offset = 0
    if zone and zone not in "Zz":
        sign = -1 if zone[0] == "-" else 1
        offset = sign * (int(zone[1:3]) * 60 + int(zone[4:6]))
    return _build(
        int(parts["year"]),
        int(parts["month"] or 1),
        int(parts["day"] or 1),
        int(parts["hour"] or 0),
        int(parts["minute"] or 0),
        int(parts["second"] or 0),
        int(fraction),
        offset,
    )


@dataclass
class _Legacy:
    """State of V8's legacy date parser (src/date/dateparser): day, time and zone parts."""

    day: list[int] = field(default_factory=list)
    named_month: int | None = None
    time: list[int] = field(default_factory=list)
    hour_offset: int | None = None
    tz_sign: int | None = None
    tz_hour: int | None = None
    tz_minute: int | None = None

    def time_expects(self, n: int) -> bool:
        limits = {1: 59, 2: 59, 3: 999}
        index = len(self.time)
        return index in limits and 0 <= n <= limits[index]

    def finish_time(self, n: int) -> None:
        """The last time part read: the parts after it are zero."""
        self.time.append(n)
        self.time += [0] * (4 - len(self.time))

    def tz_expects(self, n: int) -> bool:
        return self.tz_hour is not None and self.tz_minute is None and 0 <= n <= 59

    def tz_is_utc(self) -> bool:
        return self.tz_hour == 0 and self.tz_minute == 0

    def set_zone(self, hours: int) -> None:
        self.tz_sign = -1 if hours < 0 else 1
        self.tz_hour, self.tz_minute = abs(hours), 0

    def result(self) -> datetime:
        if not self.day:
            raise InvalidDate("No date in the string.")
        comp = self.day + [1] * (3 - len(self.day))
        if self.named_month is None:
            if not 1 <= comp[0] <= 31:
                year, month, day = comp
            else:
                month, day, year = comp
        else:
            month = self.named_month
            year, day = (comp[0], comp[1]) if not 1 <= comp[0] <= 31 else (comp[1], comp[0])
        if 0 <= year <= 49:
            year += 2000
        elif 50 <= year <= 99:
            year += 1900
        hour, minute, second, ms = self.time + [0] * (4 - len(self.time))
        if self.hour_offset is not None:
            if not 0 <= hour <= 12:
                raise InvalidDate("Hour out of range for AM/PM.")
            hour = hour % 12 + self.hour_offset
        offset = 0
        if self.tz_sign is not None:
            offset = self.tz_sign * ((self.tz_hour or 0) * 60 + (self.tz_minute or 0))
        return _build(year, month, day, hour, minute, second, ms, offset)


def _tokens(text: str) -> list[str]:
    """Tokens of the string with parenthesised comments removed, as V8's scanner does."""
    tokens, depth = [], 0
    for token in _TOKEN.findall(text):
        if token == "(":
            depth += 1
        elif token == ")" and depth:
            depth -= 1
        elif not depth:
            tokens.append(" " if token.isspace() else token)
    return tokens


def _from_legacy(text: str) -> datetime:
    tokens = _tokens(text)
    state = _Legacy()
    has_number = False
    i = 0

    def peek(offset: int = 0) -> str:
        return tokens[i + offset] if i + offset < len(tokens) else ""

    while i < len(tokens):
        token = tokens[i]
        i += 1
        if token.isdigit():
            has_number = True
            n = int(token)
            if peek() == ":":
                i += 1
                if len(state.time) >= 4:
                    raise InvalidDate("Too many time parts.")
                state.time.append(n)
                if peek() == ".":
                    i += 1
                continue
            dotted = peek() == "."
            i += dotted
            if dotted and state.time_expects(n):
                state.time.append(n)
                if not peek().isdigit():
                    raise InvalidDate("Milliseconds expected.")
                state.finish_time(int(peek()[:3].ljust(3, "0")))
                i += 1
            elif state.tz_expects(n):
                state.tz_minute = n
            elif state.time_expects(n):
                state.finish_time(n)
                if peek() not in ("", " ", "+", "-") and peek().lower() != "z":
                    raise InvalidDate("Unexpected text after the time.")
            else:
                if len(state.day) >= 3:
                    raise InvalidDate("Too many date parts.")
                state.day.append(n)
                if peek() == "-":
                    i += 1
        elif token.isalpha():
            word = token.lower()
            if word in _AM_PM and state.time:
                state.hour_offset = _AM_PM[word]
            elif len(word) >= 3 and word[:3] in _MONTHS:
                state.named_month = _MONTHS.index(word[:3]) + 1
                if peek() == "-":
                    i += 1
            elif word in _ZONES and has_number:
                state.set_zone(_ZONES[word])
            elif word == "t" and has_number and len(peek()) == 2 and peek().isdigit():
                continue  # the ISO date-time separator before a two-digit hour
            elif has_number or peek().isdigit():
                raise InvalidDate(f"Unexpected word {token!r}.")
        elif token in "+-" and (state.tz_is_utc() or state.time):
            state.tz_sign = -1 if token == "-" else 1
            digits = peek() if peek().isdigit() else ""
            i += bool(digits)
            has_number = True
            n = int(digits or 0)
            if peek() == ":":
                state.tz_hour, state.tz_minute = n, None
            elif len(digits) in (1, 2):
                state.tz_hour, state.tz_minute = n, 0
            elif len(digits) in (3, 4):
                state.tz_hour, state.tz_minute = n // 100, n % 100
            else:
                raise InvalidDate("Bad zone offset.")
        elif token in "+-)" and has_number:
            raise InvalidDate(f"Unexpected {token!r}.")
    return state.result()
