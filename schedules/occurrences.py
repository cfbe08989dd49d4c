"""When a schedule's changes fall due: its wall-clock dates and times in the system's zone
turned into instants, daylight-saving changes included. Pure: no database.

- A time that does not exist (the clocks spring forward past it) falls due when the clocks
  jump: a daily 02:30, in the night 02:00 becomes 03:00, is applied at 03:00.
- A time that happens twice (the clocks fall back) falls due the first time only.
"""

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from schedules.models import Action, Repeat, Schedule

ONE_DAY = timedelta(days=1)


@dataclass(frozen=True)
class Occurrence:
    due_at: datetime  # aware, UTC
    action: str  # Action.START or Action.END
    day: date  # the local date its window starts on

    @property
    def order(self) -> tuple:
        return (self.due_at, self.day, self.action != Action.START)


def _wall(moment: datetime, zone: ZoneInfo) -> datetime:
    return moment.astimezone(zone).replace(tzinfo=None)


def instant(day: date, at: time, zone: ZoneInfo) -> datetime:
    """The UTC instant of a wall-clock time in `zone` (module docstring for the two cases)."""
    wall = datetime.combine(day, at)
    first = wall.replace(tzinfo=zone, fold=0).astimezone(UTC)
    if _wall(first, zone) == wall:
        return first  # fold=0 is the first of a time that happens twice
    # In a gap: the two readings of the wall time lie either side of the jump; find it.
    other = wall.replace(tzinfo=zone, fold=1).astimezone(UTC)
    low, high = int(min(first, other).timestamp()), int(max(first, other).timestamp())
    while high - low > 1:
        middle = (low + high) // 2
        if _wall(datetime.fromtimestamp(middle, UTC), zone) > wall:
            high = middle
        else:
            low = middle
    return datetime.fromtimestamp(high, UTC)


def _end_day(schedule: Schedule, day: date) -> date:
    """A daily window whose end time is not after its start time ends the next day."""
    if schedule.repeat == Repeat.ONCE:
        return schedule.end_date
    return day + ONE_DAY if schedule.end_time <= schedule.start_time else day


def _window(schedule: Schedule, day: date, zone: ZoneInfo) -> list[Occurrence]:
    start_day = schedule.start_date if schedule.repeat == Repeat.ONCE else day
    window = [Occurrence(instant(start_day, schedule.start_time, zone), Action.START, start_day)]
    if schedule.has_end:
        end = instant(_end_day(schedule, start_day), schedule.end_time, zone)
        window.append(Occurrence(end, Action.END, start_day))
    return window


def _window_days(schedule: Schedule, zone: ZoneInfo, after: datetime, until: datetime):
    if schedule.repeat == Repeat.ONCE:
        yield schedule.start_date
        return
    # A window starting the day before may end in the range; a day more either side covers
    # the hours a daylight-saving jump moves an instant by.
    day = _wall(after, zone).date() - 2 * ONE_DAY
    last = _wall(until, zone).date() + ONE_DAY
    if schedule.first_date:
        day = max(day, schedule.first_date)
    if schedule.last_date:
        last = min(last, schedule.last_date)
    while day <= last:
        yield day
        day += ONE_DAY


def occurrences(
    schedule: Schedule, zone: ZoneInfo, *, after: datetime, until: datetime
) -> list[Occurrence]:
    """The occurrences due in (after, until], in the order they are applied."""
    found = [
        occurrence
        for day in _window_days(schedule, zone, after, until)
        for occurrence in _window(schedule, day, zone)
        if after < occurrence.due_at <= until
    ]
    return sorted(found, key=lambda occurrence: occurrence.order)


def last_occurrence(schedule: Schedule, zone: ZoneInfo) -> Occurrence | None:
    """The schedule's final occurrence; None for a daily schedule without a last day."""
    if schedule.repeat == Repeat.DAILY and schedule.last_date is None:
        return None
    day = schedule.start_date if schedule.repeat == Repeat.ONCE else schedule.last_date
    return _window(schedule, day, zone)[-1]


def next_occurrence(schedule: Schedule, zone: ZoneInfo, *, after: datetime) -> Occurrence | None:
    """The first occurrence after `after`, however far ahead; None when none is left."""
    if schedule.repeat == Repeat.ONCE:
        days = [schedule.start_date]
    else:
        day = _wall(after, zone).date() - ONE_DAY
        if schedule.first_date:
            day = max(day, schedule.first_date)
        days = [day + n * ONE_DAY for n in range(4)]
        if schedule.last_date:
            days = [each for each in days if each <= schedule.last_date]
    later = [o for day in days for o in _window(schedule, day, zone) if o.due_at > after]
    return min(later, key=lambda occurrence: occurrence.order, default=None)
