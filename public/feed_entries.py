"""What a trail system's public feeds say, in its language: its updates (notices, surface
conditions, snow reports), its grooming passes and the changes of its trails' status (the Atom
feed), and its scheduled closures (the calendar feed, the map's list).

Public data only, as the map shows it: hidden and trashed trails are left out, and so is
anything that names only such trails. Text from data stays text: the feed views escape it."""

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import groupby
from zoneinfo import ZoneInfo

from django.db.models import Prefetch
from django.utils import timezone
from django.utils.translation import gettext

from closures.models import Closure
from closures.selectors import closures_of_system
from closures.selectors import shown as shown_closures
from core.names import camel
from grooming.models import GroomingPass
from public import texts
from schedules.models import Action, Schedule
from schedules.occurrences import occurrences
from schedules.selectors import schedules_queryset, with_states
from trails import activities as catalog
from trails.enums import TrailStatus
from trails.models import StatusChange, Trail, TrailSystem
from updates.enums import UpdateType
from updates.models import Update
from updates.types import SNOW_DEPTHS, SURFACE_CONDITION_CATALOG

ENTRIES_MAX = 50
# Status records read to make at most ENTRIES_MAX entries (several records make one entry).
STATUS_RECORDS_READ = 400
# Records of one trail this close together are one change (a Closed trail closes each
# activity in the same transaction).
SAME_CHANGE = timedelta(seconds=2)
# Finished schedules stay in the calendar this long.
CALENDAR_KEEPS_FINISHED = timedelta(days=30)
UPCOMING_DAYS = 7
DEPTH_UNITS = {"inches": "in", "centimeters": "cm"}


@dataclass(frozen=True)
class Entry:
    """One entry of the Atom feed."""

    system_id: str
    key: str  # unique within the system: kind and row id
    title: str
    text: str  # plain text; lines separated by "\n"
    published: datetime
    updated: datetime


def status_label(status: str | None) -> str:
    if status == TrailStatus.NONE:
        return gettext("Status of its activities")
    return texts.status_label(status or "")


def _trail_names(trails: Iterable[Trail]) -> str:
    return ", ".join(trail.name for trail in trails)


def _visible(trails: Iterable[Trail]) -> list[Trail]:
    return [trail for trail in trails if not trail.hidden]


def _local(moment: datetime, zone) -> str:
    return moment.astimezone(zone).strftime("%Y-%m-%d %H:%M")


# Updates


def _update_entry(update: Update, system: TrailSystem, zone) -> Entry | None:
    named = list(update.trails.all())
    trails = _visible(named)
    if update.type != UpdateType.SNOW_REPORT and named and not trails and not update.all_trails:
        return None  # only about hidden trails
    on_trails = gettext("All trails") if update.all_trails else _trail_names(trails)
    lines = []
    if update.type == UpdateType.NOTICE:
        severities = texts.severity_labels()
        severity = severities.get(update.severity or "info", severities["info"])
        title = texts.label_colon(severity) + update.description.split("\n")[0]
        lines.append(update.description)
        if on_trails:
            lines.append(texts.label_colon(gettext("Trails")) + on_trails)
        if update.link_url:
            lines.append(update.link_url)
    elif update.type == UpdateType.SURFACE_CONDITIONS:
        conditions = ", ".join(
            str(SURFACE_CONDITION_CATALOG[c].label)
            for c in update.conditions
            if c in SURFACE_CONDITION_CATALOG
        )
        title = gettext("Conditions on %(trails)s: %(conditions)s") % {
            "trails": on_trails,
            "conditions": conditions,
        }
        lines.append(title)
    else:
        labels = texts.snow_labels()
        unit = DEPTH_UNITS.get(system.depth_measurement, system.depth_measurement)
        figures = [
            f"{labels[camel(name)]} {getattr(update, name):g} {unit}"
            for name in SNOW_DEPTHS
            if getattr(update, name) is not None
        ]
        title = texts.label_colon(gettext("Snow report")) + ", ".join(figures[:2])
        lines.extend(figures)
        if update.last_snow_date:
            lines.append(
                texts.label_colon(labels["lastSnowDate"])
                + update.last_snow_date.astimezone(zone).strftime("%Y-%m-%d")
            )
    lines.append(gettext("Until %(time)s") % {"time": _local(update.expiration_date, zone)})
    return Entry(
        system_id=system.pk,
        key=f"update-{update.pk}",
        title=title[:200],
        text="\n".join(lines),
        published=update.created_on,
        updated=update.updated_on,
    )


def _updates(system: TrailSystem) -> list[Update]:
    """Posted by people; grooming's own updates are told by its passes."""
    return list(
        Update.objects.filter(trail_system=system)
        .exclude(source=Update.Source.GROOMING)
        .prefetch_related(Prefetch("trails", Trail.objects.only("id", "name", "hidden")))
        .order_by("-created_on")[:ENTRIES_MAX]
    )


# Grooming


def _grooming_entries(system: TrailSystem, zone) -> list[Entry]:
    passes = (
        GroomingPass.objects.filter(trail_system=system)
        .defer("track")
        .prefetch_related("groomed_trails__trail")
        .order_by("-created_on")[:ENTRIES_MAX]
    )
    entries = []
    for grooming_pass in passes:
        trails = _visible(
            g.trail for g in grooming_pass.groomed_trails.all() if g.trail.trashed_on is None
        )
        if not trails:
            continue
        condition = SURFACE_CONDITION_CATALOG.get(grooming_pass.condition)
        groomed = gettext("Groomed: %(trails)s") % {"trails": _trail_names(trails)}
        label = str(condition.label) if condition else ""
        entries.append(
            Entry(
                system_id=system.pk,
                key=f"grooming-{grooming_pass.pk}",
                title=groomed[:200],
                text="\n".join(
                    filter(
                        None,
                        [
                            groomed,
                            label,
                            _local(grooming_pass.groomed_at, zone),
                        ],
                    )
                ),
                published=grooming_pass.created_on,
                updated=grooming_pass.created_on,
            )
        )
    return entries


# Status changes


def _status_entries(system: TrailSystem, zone) -> list[Entry]:
    """Each trail's changes of status (its own, or its activities'): records of one trail
    within SAME_CHANGE of each other make one entry. A value appearing or going (an
    activity added or removed, a trail created) is not a change of status."""
    records = list(
        StatusChange.objects.filter(
            trail_system=system,
            field="status",
            trail__isnull=False,
            trail__hidden=False,
            trail__trashed_on__isnull=True,
            old_value__isnull=False,
            new_value__isnull=False,
        )
        .select_related("trail")
        .only(
            "id",
            "at",
            "via",
            "activity",
            "old_value",
            "new_value",
            "trail_system_id",
            "trail_id",
            "trail__name",
        )
        .order_by("-at", "-id")[:STATUS_RECORDS_READ]
    )
    records.sort(key=lambda record: (record.trail_id, -record.at.timestamp(), -record.pk))
    entries = []
    for _trail_id, together in groupby(records, key=lambda record: record.trail_id):
        for change in _split(list(together)):
            entries.append(_status_entry(change, system.language, zone))
    return entries


def _split(records: list[StatusChange]) -> list[list[StatusChange]]:
    """Newest-first records of one trail in a row, split where they are SAME_CHANGE apart."""
    changes: list[list[StatusChange]] = []
    for record in records:
        if changes and changes[-1][-1].at - record.at <= SAME_CHANGE:
            changes[-1].append(record)
        else:
            changes.append([record])
    return changes


def _status_entry(records: list[StatusChange], language: str, zone) -> Entry:
    trail = records[0].trail
    own = [r for r in records if not r.activity]
    parts = []
    if own:
        parts.append(status_label(own[0].new_value))
    for record in sorted((r for r in records if r.activity), key=lambda r: r.activity):
        known = catalog.CATALOG.get(record.activity)
        name = known.label(language) if known else record.activity
        parts.append(f"{name} {status_label(record.new_value).lower()}")
    title = texts.label_colon(trail.name) + ", ".join(parts)
    lines = [title]
    if own:
        lines.append(gettext("Was: %(status)s") % {"status": status_label(own[-1].old_value)})
    if any(r.via == "schedule" for r in records):
        lines.append(gettext("Scheduled change"))
    lines.append(_local(records[0].at, zone))
    return Entry(
        system_id=records[0].trail_system_id,
        key=f"status-{records[-1].pk}",
        title=title[:200],
        text="\n".join(lines),
        published=records[0].at,
        updated=records[0].at,
    )


# Closures


def closure_title(closure: Closure) -> str:
    """ "Partly closed: Ridge Loop (Avalanche control)"; "Closed: ..." for a whole trail."""
    words = (
        texts.status_label(TrailStatus.CLOSED) if closure.whole_trail else gettext("Partly closed")
    )
    return f"{words}: {closure.trail.name} ({closure.get_reason_display()})"


def closure_lines(closure: Closure, zone) -> list[str]:
    """The stretch's length, until when, the note and the detour, as text lines."""
    metres = closure.stretch.length_meters
    length = f"{metres / 1000:.1f} km" if metres >= 1000 else f"{metres:.0f} m"
    lines = [gettext("Closed stretch: {length}").replace("{length}", length)]
    if closure.ends_at:
        lines.append(gettext("until {end}").replace("{end}", _local(closure.ends_at, zone)))
    lines += [line for line in (closure.note,) if line]
    if closure.detour:
        lines.append(gettext("Detour: {detour}").replace("{detour}", closure.detour))
    return lines


def current_closures(system: TrailSystem) -> list[Closure]:
    """In effect and planned, on shown trails, each with its stretch."""
    now = timezone.now()
    closures = [c for c in closures_of_system(system.pk, now) if not c.trail.hidden]
    return shown_closures(closures, now)


def _closure_entries(system: TrailSystem, zone) -> list[Entry]:
    return [
        Entry(
            system_id=system.pk,
            key=f"closure-{closure.pk}",
            title=closure_title(closure)[:200],
            text="\n".join(closure_lines(closure, zone)),
            published=closure.starts_at,
            updated=closure.updated_on,
        )
        for closure in current_closures(system)
    ]


def atom_entries(system: TrailSystem, zone) -> list[Entry]:
    """Newest first, at most ENTRIES_MAX, in the active language."""
    entries = [
        entry
        for entry in (_update_entry(u, system, zone) for u in _updates(system))
        if entry is not None
    ]
    entries += _grooming_entries(system, zone)
    entries += _status_entries(system, zone)
    entries += _closure_entries(system, zone)
    entries.sort(key=lambda entry: entry.published, reverse=True)
    return entries[:ENTRIES_MAX]


# Schedules


@dataclass
class ScheduledChange:
    """A schedule as the public sees it: what it sets on which visible trails, and when."""

    schedule: Schedule
    trails: list[Trail]
    activity_label: str | None
    in_effect: bool
    starts_at: datetime | None  # the start in effect, or the next start
    ends_at: datetime | None  # the end of that window
    zone: ZoneInfo = field(repr=False)


def activity_label(schedule: Schedule, language: str) -> str | None:
    if not schedule.activity:
        return None
    known = catalog.CATALOG.get(schedule.activity)
    return known.label(language) if known else schedule.activity


def public_schedules(system: TrailSystem, now: datetime | None = None) -> list[Schedule]:
    """The system's schedules with their states; their trails are the visible ones."""
    now = now or timezone.now()
    schedules = with_states(list(schedules_queryset().filter(trail_system=system)), now)
    for schedule in schedules:
        schedule.shown_trails = _visible(schedule.shown_trails)
    return [schedule for schedule in schedules if schedule.shown_trails]


def current_and_upcoming(system: TrailSystem, now: datetime | None = None) -> list:
    """For the map: the schedules in effect now (on the trails still at the status they set)
    and those starting within UPCOMING_DAYS, soonest first."""
    now = now or timezone.now()
    shown = []
    for schedule in public_schedules(system, now):
        state = schedule.state
        if state.in_effect:
            trails = schedule.shown_trails
            if not schedule.activity:
                trails = [t for t in trails if t.status == schedule.status]
            end = state.next if state.next and state.next.action == Action.END else None
            if trails:
                shown.append(_shown(schedule, trails, True, state.since, end and end.due_at))
            continue
        coming = occurrences(
            schedule, state.zone, after=now, until=now + timedelta(days=UPCOMING_DAYS)
        )
        start = next((o for o in coming if o.action == Action.START), None)
        if start is None:
            continue
        end = next((o for o in coming if o.action == Action.END and o.day == start.day), None)
        shown.append(
            _shown(schedule, schedule.shown_trails, False, start.due_at, end and end.due_at)
        )
    return sorted(shown, key=lambda change: (not change.in_effect, change.starts_at or now))


def _shown(schedule, trails, in_effect, starts_at, ends_at) -> ScheduledChange:
    return ScheduledChange(
        schedule=schedule,
        trails=trails,
        activity_label=activity_label(schedule, schedule.trail_system.language),
        in_effect=in_effect,
        starts_at=starts_at,
        ends_at=ends_at,
        zone=schedule.state.zone,
    )


def calendar_schedules(system: TrailSystem, now: datetime | None = None) -> list[Schedule]:
    """The schedules that close something: Closed at their start, or at their end; finished
    ones for CALENDAR_KEEPS_FINISHED after."""
    now = now or timezone.now()
    return [
        schedule
        for schedule in public_schedules(system, now)
        if TrailStatus.CLOSED in (schedule.status, schedule.end_status)
        and (schedule.finished_on is None or schedule.finished_on > now - CALENDAR_KEEPS_FINISHED)
        and (schedule.status == TrailStatus.CLOSED or schedule.has_end)
    ]
