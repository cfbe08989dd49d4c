"""Applying scheduled changes with a controlled clock: beat's pass (apply_due_schedules) is
called at chosen instants, never slept for."""

import threading
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.db import connection

from core.actors import Actor, Via
from publishing.models import CompileRequest
from schedules.models import Outcome, Schedule, ScheduleRun
from schedules.services import (
    apply_due_schedules,
    change_schedule,
    create_schedule,
    delete_schedule,
)
from tests.factories import TrailActivityFactory, TrailFactory, TrailSystemFactory
from trails.models import StatusChange, Trail, TrailActivity
from trails.services import change_trail
from trails.trash import trash_trail

pytestmark = pytest.mark.django_db

DENVER = ZoneInfo("America/Denver")  # 2026: spring forward 8 March, fall back 1 November
MANAGER = Actor("manager-uid", Via.ID_TOKEN)


def at(*args) -> datetime:
    """A wall-clock time in Denver as an instant."""
    return datetime(*args, tzinfo=DENVER).astimezone(UTC)


@pytest.fixture
def system():
    return TrailSystemFactory(time_zone="America/Denver")


@pytest.fixture
def trail(system):
    trail = TrailFactory(trail_system=system, status="Open", name="Night Loop")
    TrailActivityFactory(trail=trail, value="nordic-classic", status="Open")
    TrailActivityFactory(trail=trail, value="nordic-skate", status="Caution")
    return trail


def schedule(system, trails, now, **fields) -> Schedule:
    return create_schedule(
        system=system,
        **{"trail_ids": [t.pk for t in trails], "status": "Closed", **fields},
        actor=MANAGER,
        now=now,
    )


def race_closure(system, trail) -> Schedule:
    """Made on Monday 14 December: Closed from Saturday 16:00 to Sunday 08:00, then back."""
    return schedule(
        system,
        [trail],
        at(2026, 12, 14, 9),
        repeat="once",
        starts_at=datetime(2026, 12, 19, 16),
        ends_at=datetime(2026, 12, 20, 8),
        reason="Giant slalom race",
    )


def state(trail) -> tuple:
    trail = Trail.all_objects.get(pk=trail.pk)
    activities = dict(TrailActivity.objects.filter(trail=trail).values_list("value", "status"))
    return trail.status, activities


def tick(moment: datetime) -> int:
    return apply_due_schedules(now=moment)


def status_of(trail) -> str:
    return Trail.all_objects.get(pk=trail.pk).status


def scheduled_changes(trail) -> list[tuple]:
    return list(
        StatusChange.objects.filter(trail=trail, activity="", via=Via.SCHEDULE)
        .order_by("at", "id")
        .values_list("old_value", "new_value", "uid")
    )


def test_a_daily_schedule_closes_and_reopens_at_the_due_minutes_across_the_spring_change(
    system, trail
):
    """Closed at 21:00 and Open at 08:30 every day, over the night the clocks spring forward
    (Saturday 7 to Monday 9 March 2026): each change at its minute in Denver's time, once."""
    schedule(
        system,
        [trail],
        at(2026, 3, 7, 12),
        repeat="daily",
        start_time=time(21),
        end_time=time(8, 30),
        end_status="Open",
    )
    timeline = [
        (at(2026, 3, 7, 20, 59), "Open"),
        (at(2026, 3, 7, 21, 0), "Closed"),  # 04:00 UTC
        (at(2026, 3, 7, 21, 0, 30), "Closed"),
        (at(2026, 3, 8, 8, 29), "Closed"),
        (at(2026, 3, 8, 8, 30), "Open"),  # 14:30 UTC: MDT now, an hour earlier in UTC
        (at(2026, 3, 8, 20, 59, 59), "Open"),
        (at(2026, 3, 8, 21, 0), "Closed"),
        (at(2026, 3, 9, 8, 29, 59), "Closed"),
        (at(2026, 3, 9, 8, 30), "Open"),
        (at(2026, 3, 9, 8, 45), "Open"),
    ]
    for moment, expected in timeline:
        tick(moment)
        assert status_of(trail) == expected, moment.astimezone(DENVER)
    assert at(2026, 3, 7, 21) == datetime(2026, 3, 8, 4, tzinfo=UTC)
    assert at(2026, 3, 8, 8, 30) == datetime(2026, 3, 8, 14, 30, tzinfo=UTC)
    assert (
        scheduled_changes(trail)
        == [
            ("Open", "Closed", "manager-uid"),
            ("Closed", "Open", "manager-uid"),
        ]
        * 2
    )
    runs = ScheduleRun.objects.order_by("due_at")
    assert [(r.due_at.astimezone(DENVER).strftime("%d %H:%M"), r.action) for r in runs] == [
        ("07 21:00", "start"),
        ("08 08:30", "end"),
        ("08 21:00", "start"),
        ("09 08:30", "end"),
    ]


def test_a_daily_0230_closure_on_the_spring_night_closes_when_the_clocks_jump(system, trail):
    schedule(system, [trail], at(2026, 3, 7, 12), repeat="daily", start_time=time(2, 30))
    tick(datetime(2026, 3, 8, 8, 59, 59, tzinfo=UTC))  # 01:59:59 MST
    assert status_of(trail) == "Open"
    tick(datetime(2026, 3, 8, 9, 0, tzinfo=UTC))  # 03:00 MDT, the jump
    assert status_of(trail) == "Closed"


def test_a_daily_0130_change_on_the_autumn_night_happens_once(system, trail):
    schedule(
        system,
        [trail],
        at(2026, 10, 31, 12),
        repeat="daily",
        start_time=time(1, 30),
        end_time=time(1, 45),
    )
    first = datetime(2026, 11, 1, 7, 30, tzinfo=UTC)  # 01:30 MDT
    tick(first)
    assert status_of(trail) == "Closed"
    tick(first + timedelta(minutes=15))  # 01:45 MDT
    assert status_of(trail) == "Open"
    tick(first + timedelta(hours=1))  # 01:30 MST, the same wall time again: nothing
    tick(first + timedelta(hours=1, minutes=15))
    assert status_of(trail) == "Open"
    assert len(scheduled_changes(trail)) == 2


def test_a_one_off_closure_puts_back_what_it_changed(system, trail):
    """Race course Closed from Saturday 16:00 to Sunday 08:00, then back to what it was:
    the trail's status and each activity's."""
    trail.status = "Caution"
    trail.save()
    race_closure(system, trail)
    before = state(trail)
    tick(at(2026, 12, 19, 16))
    assert state(trail) == (
        "Closed",
        {"nordic-classic": "Closed", "nordic-skate": "Closed"},
    )
    tick(at(2026, 12, 20, 8))
    assert (
        state(trail) == before == ("Caution", {"nordic-classic": "Open", "nordic-skate": "Caution"})
    )
    assert Schedule.objects.get().finished_on is not None
    assert CompileRequest.objects.filter(trail_system=system).count() >= 2


def test_a_change_made_by_hand_during_the_window_stands(system, trail):
    race_closure(system, trail)
    tick(at(2026, 12, 19, 16))
    change_trail(trail=trail, status="Caution", actor=MANAGER)
    tick(at(2026, 12, 20, 8))
    status, activities = state(trail)
    assert status == "Caution"  # the patroller's call, not the schedule's memory
    assert activities == {"nordic-classic": "Open", "nordic-skate": "Caution"}


def test_a_change_due_while_nothing_ran_is_applied_late_and_once(system, trail):
    race_closure(system, trail)
    assert tick(at(2026, 12, 19, 15, 59)) == 0
    # Beat is down from 15:59 to 18:30; its first pass applies the 16:00 closure.
    assert tick(at(2026, 12, 19, 18, 30)) == 1
    assert status_of(trail) == "Closed"
    for minutes in range(1, 5):
        assert tick(at(2026, 12, 19, 18, 30) + timedelta(minutes=minutes)) == 0
    assert scheduled_changes(trail) == [("Open", "Closed", "manager-uid")]
    assert ScheduleRun.objects.get().outcome == Outcome.APPLIED


def test_after_a_long_outage_only_the_state_that_should_hold_now_is_applied(system, trail):
    schedule(
        system,
        [trail],
        at(2026, 1, 5, 12),
        repeat="daily",
        start_time=time(21),
        end_time=time(8, 30),
        end_status="Open",
    )
    tick(at(2026, 1, 8, 22))  # four nights and three mornings passed unseen
    assert status_of(trail) == "Closed"
    assert scheduled_changes(trail) == [("Open", "Closed", "manager-uid")]
    runs = ScheduleRun.objects.order_by("due_at")
    assert [r.outcome for r in runs] == [Outcome.SUPERSEDED] * 6 + [Outcome.APPLIED]


def test_a_window_missed_entirely_changes_nothing(system, trail):
    race_closure(system, trail)
    tick(at(2026, 12, 21, 9))
    assert state(trail)[0] == "Open"
    assert scheduled_changes(trail) == []
    assert Schedule.objects.get().finished_on is not None


def test_a_daily_window_putting_back_keeps_what_was_before_the_first_night(system, trail):
    """Beat down over the morning: the next night's start finds the window still open and
    keeps the values from before the first night."""
    trail.status = "Caution"
    trail.save()
    schedule(
        system, [trail], at(2026, 1, 5, 12), repeat="daily", start_time=time(21), end_time=time(8)
    )
    tick(at(2026, 1, 5, 21))
    tick(at(2026, 1, 6, 22))  # the 08:00 end was missed, the 21:00 start is due
    assert status_of(trail) == "Closed"
    tick(at(2026, 1, 7, 8))
    assert status_of(trail) == "Caution"


def test_an_activity_schedule_changes_only_that_activity(system, trail):
    schedule(
        system,
        [trail],
        at(2026, 1, 5, 12),
        activity="nordic-skate",
        repeat="daily",
        start_time=time(16),
        end_time=time(9),
    )
    tick(at(2026, 1, 5, 16))
    assert state(trail) == ("Open", {"nordic-classic": "Open", "nordic-skate": "Closed"})
    tick(at(2026, 1, 6, 9))
    assert state(trail) == ("Open", {"nordic-classic": "Open", "nordic-skate": "Caution"})
    activity_changes = StatusChange.objects.filter(trail=trail, activity="nordic-skate")
    assert set(activity_changes.values_list("via", flat=True)) == {Via.SCHEDULE}


def test_an_edit_while_due_applies_the_due_change_first_and_governs_what_follows(system, trail):
    made = schedule(system, [trail], at(2026, 1, 5, 12), repeat="daily", start_time=time(21))
    # 21:00 has passed, no pass has run yet, and the manager moves the closure to 22:00.
    change_schedule(
        schedule=made,
        start_time=time(22),
        actor=MANAGER,
        now=at(2026, 1, 5, 21, 0, 10),
    )
    assert status_of(trail) == "Closed"  # the 21:00 change was due: made before the edit
    change_trail(trail=trail, status="Open", actor=MANAGER)
    tick(at(2026, 1, 5, 21, 30))
    assert status_of(trail) == "Open"  # the old 21:00 never again
    tick(at(2026, 1, 5, 22))
    assert status_of(trail) == "Closed"
    assert len(scheduled_changes(trail)) == 2


def test_a_delete_while_due_applies_the_due_change_first_then_nothing_more(system, trail):
    made = schedule(
        system, [trail], at(2026, 1, 5, 12), repeat="daily", start_time=time(21), end_time=time(8)
    )
    delete_schedule(schedule=made, actor=MANAGER, now=at(2026, 1, 5, 21, 0, 5))
    assert status_of(trail) == "Closed"
    assert not Schedule.objects.exists()
    tick(at(2026, 1, 6, 8))
    assert status_of(trail) == "Closed"  # deleting leaves the trails as they are


def test_a_trashed_trail_is_left_alone(system, trail):
    other = TrailFactory(trail_system=system, status="Open")
    schedule(system, [trail, other], at(2026, 1, 5, 12), repeat="daily", start_time=time(21))
    trash_trail(trail=trail, actor=MANAGER)
    tick(at(2026, 1, 5, 21))
    assert status_of(trail) == "Open"
    assert status_of(other) == "Closed"


def test_a_new_time_zone_moves_the_wall_clock_times_with_it(system, trail):
    schedule(system, [trail], at(2026, 1, 5, 12), repeat="daily", start_time=time(21))
    system.time_zone = "America/Toronto"  # two hours ahead of Denver
    system.save()
    tick(datetime(2026, 1, 6, 1, 59, tzinfo=UTC))  # 20:59 in Toronto
    assert status_of(trail) == "Open"
    tick(datetime(2026, 1, 6, 2, 0, tzinfo=UTC))  # 21:00 in Toronto, 19:00 in Denver
    assert status_of(trail) == "Closed"


def test_history_names_the_schedule_path_and_who_set_it(system, trail):
    schedule(system, [trail], at(2026, 1, 5, 12), repeat="daily", start_time=time(21))
    tick(at(2026, 1, 5, 21))
    rows = StatusChange.objects.filter(trail=trail).values_list("via", "uid", "activity")
    assert set(rows) == {
        (Via.SCHEDULE, "manager-uid", ""),
        (Via.SCHEDULE, "manager-uid", "nordic-classic"),
        (Via.SCHEDULE, "manager-uid", "nordic-skate"),
    }


@pytest.mark.django_db(transaction=True)
def test_passes_running_at_the_same_time_apply_an_occurrence_once():
    system = TrailSystemFactory(time_zone="America/Denver")
    trails = TrailFactory.create_batch(5, trail_system=system, status="Open")
    schedule(system, trails, at(2026, 1, 5, 12), repeat="daily", start_time=time(21))
    barrier = threading.Barrier(4)
    recorded = []

    def one_pass():
        try:
            barrier.wait()
            recorded.append(tick(at(2026, 1, 5, 21, 0, 3)))
        finally:
            connection.close()

    threads = [threading.Thread(target=one_pass) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(recorded) == [0, 0, 0, 1]
    assert ScheduleRun.objects.count() == 1
    assert StatusChange.objects.filter(via=Via.SCHEDULE).count() == 5
