"""Dates out: ISO 8601 with milliseconds and a Z zone, as the interface shows them."""

from datetime import UTC, datetime


def iso_ms(value: datetime | None) -> str | None:
    if value is None:
        return None
    value = value.astimezone(UTC)
    # strftime's %Y drops the leading zeros of years before 1000; ISO 8601 needs four digits.
    return (
        f"{value.year:04d}-"
        + value.strftime("%m-%dT%H:%M:%S.")
        + (f"{value.microsecond // 1000:03d}Z")
    )
