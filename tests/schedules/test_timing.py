"""When occurrences fall due in a zone with daylight-saving time (schedules.occurrences): the
choices the docs state, tested on the nights the clocks change."""

from datetime import UTC, date, datetime, time
from zoneinfo import ZoneInfo

import pytest

from schedules.models import Schedule
from schedules.occurrences import instant, last_occurrence, next_occurrence, occurrences

DENVER = ZoneInfo("America/Denver")  # 2026: spring forward 8 March, fall back 1 November


def at(*args) -> datetime:
    return datetime(*args, tzinfo=UTC)


def local(moment: datetime, zone=DENVER) -> str:
    return moment.astimezone(zone).strftime("%Y-%m-%d %H:%M %Z")


def test_a_time_that_exists_once_is_that_time():
    assert local(instant(date(2026, 1, 10), time(21), DENVER)) == "2026-01-10 21:00 MST"
    assert local(instant(date(2026, 7, 10), time(21), DENVER)) == "2026-07-10 21:00 MDT"


def test_a_time_the_clocks_skip_falls_due_when_they_jump():
    """02:30 does not exist on 8 March 2026 in Denver: 02:00 MST becomes 03:00 MDT."""
    due = instant(date(2026, 3, 8), time(2, 30), DENVER)
    assert due == at(2026, 3, 8, 9, 0)
    assert local(due) == "2026-03-08 03:00 MDT"
    assert local(instant(date(2026, 3, 8), time(1, 59), DENVER)) == "2026-03-08 01:59 MST"
    assert local(instant(date(2026, 3, 8), time(3, 0), DENVER)) == "2026-03-08 03:00 MDT"


def test_a_time_that_happens_twice_falls_due_the_first_time():
    """01:30 happens twice on 1 November 2026 in Denver: first in MDT, then in MST."""
    due = instant(date(2026, 11, 1), time(1, 30), DENVER)
    assert due == at(2026, 11, 1, 7, 30)
    assert local(due) == "2026-11-01 01:30 MDT"


def test_a_half_hour_shift_lord_howe():
    zone = ZoneInfo("Australia/Lord_Howe")  # 02:00 becomes 02:30 on 4 October 2026
    assert instant(date(2026, 10, 4), time(2, 15), zone).astimezone(zone).strftime("%H:%M") == (
        "02:30"
    )


def daily(**fields) -> Schedule:
    return Schedule(repeat="daily", status="Closed", **fields)


def test_a_daily_window_over_the_spring_night():
    schedule = daily(start_time=time(21), end_time=time(8, 30))
    found = occurrences(schedule, DENVER, after=at(2026, 3, 7, 17), until=at(2026, 3, 9, 23))
    assert [(local(o.due_at), o.action) for o in found] == [
        ("2026-03-07 21:00 MST", "start"),
        ("2026-03-08 08:30 MDT", "end"),
        ("2026-03-08 21:00 MDT", "start"),
        ("2026-03-09 08:30 MDT", "end"),
    ]


def test_a_daily_0230_on_the_spring_night_and_the_nights_around_it():
    schedule = daily(start_time=time(2, 30))
    found = occurrences(schedule, DENVER, after=at(2026, 3, 7), until=at(2026, 3, 10))
    assert [local(o.due_at) for o in found] == [
        "2026-03-07 02:30 MST",
        "2026-03-08 03:00 MDT",
        "2026-03-09 02:30 MDT",
    ]


def test_a_daily_0130_on_the_autumn_night_falls_due_once():
    schedule = daily(start_time=time(1, 30))
    found = occurrences(schedule, DENVER, after=at(2026, 10, 31), until=at(2026, 11, 3))
    assert [local(o.due_at) for o in found] == [
        "2026-10-31 01:30 MDT",
        "2026-11-01 01:30 MDT",
        "2026-11-02 01:30 MST",
    ]


def test_first_and_last_days_bound_a_daily_schedule():
    schedule = daily(
        start_time=time(21),
        end_time=time(8),
        first_date=date(2026, 1, 2),
        last_date=date(2026, 1, 3),
    )
    found = occurrences(schedule, DENVER, after=at(2025, 12, 1), until=at(2026, 2, 1))
    assert [(local(o.due_at), o.action) for o in found] == [
        ("2026-01-02 21:00 MST", "start"),
        ("2026-01-03 08:00 MST", "end"),
        ("2026-01-03 21:00 MST", "start"),
        ("2026-01-04 08:00 MST", "end"),
    ]
    assert local(last_occurrence(schedule, DENVER).due_at) == "2026-01-04 08:00 MST"
    assert next_occurrence(schedule, DENVER, after=at(2026, 1, 5)) is None
    assert local(next_occurrence(schedule, DENVER, after=at(2025, 6, 1)).due_at) == (
        "2026-01-02 21:00 MST"
    )


def test_a_one_off_window():
    schedule = Schedule(
        repeat="once",
        status="Closed",
        start_date=date(2026, 12, 19),
        start_time=time(16),
        end_date=date(2026, 12, 20),
        end_time=time(8),
    )
    found = occurrences(schedule, DENVER, after=at(2026, 1, 1), until=at(2027, 1, 1))
    assert [(local(o.due_at), o.action) for o in found] == [
        ("2026-12-19 16:00 MST", "start"),
        ("2026-12-20 08:00 MST", "end"),
    ]
    assert next_occurrence(schedule, DENVER, after=found[0].due_at).action == "end"


@pytest.mark.parametrize("zone", ["Pacific/Kiritimati", "Pacific/Pago_Pago", "Etc/GMT+10"])
def test_far_zones(zone):
    schedule = daily(start_time=time(21))
    found = occurrences(schedule, ZoneInfo(zone), after=at(2026, 5, 1), until=at(2026, 5, 4))
    assert [o.due_at.astimezone(ZoneInfo(zone)).strftime("%H:%M") for o in found] == ["21:00"] * 3
