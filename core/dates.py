"""Dates out: ISO 8601 with milliseconds and a Z zone, as the interface shows them."""

from datetime import UTC, datetime


def iso_ms(value: datetime | None) -> str | None:
    if value is None:
        return None
    value = value.astimezone(UTC)
    return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"
