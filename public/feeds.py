"""A trail system's public feeds: /feeds/<id>.atom (Django's syndication framework, Atom 1.0),
/feeds/<id>.ics (its scheduled closures as iCalendar, with the icalendar package) and
/feeds/<id>/schedules.json (what the map lists under "Scheduled changes"). A system that is
not on the public map (inactive) has none: 404, as its map."""

from datetime import date, datetime, time, timedelta

from django.conf import settings
from django.contrib.syndication.views import Feed
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.feedgenerator import Atom1Feed
from django.utils.html import escape, linebreaks
from django.utils.translation import gettext
from icalendar import Calendar, Event

from closures.models import Closure
from core.dates import iso_ms
from core.links import absolute
from core.text import xml_text
from public.feed_entries import (
    Entry,
    activity_label,
    atom_entries,
    calendar_schedules,
    closure_lines,
    closure_title,
    current_and_upcoming,
    current_closures,
    status_label,
)
from public.feed_http import public_feed
from public.pages import of_public_system
from public.texts import label_colon
from schedules.models import Action, Repeat, Schedule
from schedules.occurrences import instant, occurrences
from trails.enums import TrailStatus
from trails.models import TrailSystem
from trails.selectors import unconfirmed_statuses
from trails.timezones import zone_of

FEED_MAX_AGE = 60


class SystemAtom1Feed(Atom1Feed):
    """Atom 1.0 whose `updated`, with no entry to take it from, is when the system was created
    rather than the moment of the request: the same feed is the same body (its ETag holds).
    Its texts leave out what XML 1.0 cannot hold (a notice's vertical tab), which Django's
    writer would refuse with an error, as the CAP alerts do (core.text.xml_text)."""

    def __init__(self, **feed: object) -> None:
        super().__init__(**xml_text(feed))

    def add_item(self, **item: object) -> None:
        super().add_item(**xml_text(item))

    def latest_post_date(self) -> datetime:
        if any(item["updateddate"] or item["pubdate"] for item in self.items):
            return super().latest_post_date()
        return self.feed["created"]


class SystemAtomFeed(Feed):
    """Updates, grooming and status changes, newest first, in the system's language."""

    feed_type = SystemAtom1Feed

    def feed_extra_kwargs(self, system: TrailSystem) -> dict:
        return {"created": system.created_on}

    def get_object(self, request: HttpRequest, system: TrailSystem) -> TrailSystem:
        system.feed_zone = zone_of(system)
        return system

    def title(self, system: TrailSystem) -> str:
        return gettext("%(name)s: trail status and updates") % {"name": system.name}

    def subtitle(self, system: TrailSystem) -> str:
        return gettext("Notices, conditions, snow reports, grooming and trail status changes.")

    def link(self, system: TrailSystem) -> str:
        return reverse("public-map", args=[system.pk])

    def feed_url(self, system: TrailSystem) -> str:
        return reverse("feed-atom", args=[system.pk])

    def feed_guid(self, system: TrailSystem) -> str:
        return absolute("feed-atom", system.pk)

    def author_name(self, system: TrailSystem) -> str:
        return system.name

    def items(self, system: TrailSystem) -> list[Entry]:
        return atom_entries(system, system.feed_zone)

    def item_title(self, entry: Entry) -> str:
        return entry.title

    def item_description(self, entry: Entry) -> str:
        """The text, escaped: the feed's summary is HTML, and data is never markup."""
        return linebreaks(escape(entry.text))

    def item_link(self, entry: Entry) -> str:
        return reverse("public-map", args=[entry.system_id])

    def item_guid(self, entry: Entry) -> str:
        return f"{absolute('public-map', entry.system_id)}#{entry.key}"

    item_guid_is_permalink = False

    def item_pubdate(self, entry: Entry) -> datetime:
        return entry.published

    def item_updateddate(self, entry: Entry) -> datetime:
        return max(entry.updated, entry.published)


# In the system's language, which is the feed's xml:lang.
atom_view = public_feed(ttl=FEED_MAX_AGE)(of_public_system(SystemAtomFeed()))


# iCalendar


def _closure_summary(schedule: Schedule) -> str:
    names = ", ".join(trail.name for trail in schedule.shown_trails)
    closed = status_label(TrailStatus.CLOSED)
    if schedule.activity:
        closed = f"{closed} ({schedule.activity_label})"
    return label_colon(closed) + names


def _closure_event(schedule: Schedule, system: TrailSystem) -> Event:
    """The closed period of a schedule: from its start to its end when it closes at its
    start; from its end to its next start when it closes at its end. A daily schedule is one
    recurring event (RRULE), ending with its last day."""
    zone = schedule.state.zone
    closes_at_start = schedule.status == TrailStatus.CLOSED
    daily = schedule.repeat == Repeat.DAILY
    first_day = _first_window_day(schedule, zone) if daily else schedule.start_date
    start = datetime.combine(first_day, schedule.start_time, zone)
    end = None
    if schedule.has_end:
        end_day = (
            schedule.end_date
            if not daily
            else (
                first_day + timedelta(days=1)
                if schedule.end_time <= schedule.start_time
                else first_day
            )
        )
        end = datetime.combine(end_day, schedule.end_time, zone)
    if not closes_at_start:
        # Closed from the end until the next start (the next day's, for a daily schedule).
        start, end = end, (start + timedelta(days=1) if daily else None)
        while daily and end <= start:
            end += timedelta(days=1)
    event = Event()
    event.add("uid", f"{schedule.pk}@{settings.PUBLIC_BASE_URL.split('://')[-1]}")
    event.add("dtstamp", schedule.updated_on)
    event.add("last-modified", schedule.updated_on)
    event.add("summary", _closure_summary(schedule))
    event.add("dtstart", start)
    if end is not None:
        event.add("dtend", end)
    description = [schedule.reason] if schedule.reason else []
    if end is None:
        description.append(gettext("Until further notice."))
    if description:
        event.add("description", "\n".join(description))
    event.add("url", absolute("public-map", system.pk))
    if daily:
        rule = {"freq": "daily"}
        if schedule.last_date:
            # The last closure begins on the last day's window, a day later for one that
            # begins at its window's end the next morning; UTC, as RFC 5545 asks.
            last_day = schedule.last_date + (start.date() - first_day)
            rule["until"] = instant(last_day, start.time(), zone)
        event.add("rrule", rule)
    return event


def _first_window_day(schedule: Schedule, zone) -> date:
    """The day of a daily schedule's first window whose closing change happens: its start,
    or its end for a schedule that closes at its end, after the schedule was set (armed_on)
    and not before its first_date."""
    closing = Action.START if schedule.status == TrailStatus.CLOSED else Action.END
    after = schedule.armed_on
    if schedule.first_date:
        after = max(after, instant(schedule.first_date, time.min, zone))
    soon = occurrences(schedule, zone, after=after, until=after + timedelta(days=3))
    days = [occurrence.day for occurrence in soon if occurrence.action == closing]
    return days[0] if days else after.astimezone(zone).date()


def _stretch_event(closure: Closure, system: TrailSystem, zone) -> Event:
    """A closed stretch of a trail, from its start to its end (none: a day from now on)."""
    event = Event()
    event.add("uid", f"closure-{closure.pk}@{settings.PUBLIC_BASE_URL.split('://')[-1]}")
    event.add("dtstamp", closure.updated_on)
    event.add("last-modified", closure.updated_on)
    event.add("summary", closure_title(closure))
    event.add("dtstart", closure.starts_at.astimezone(zone))
    if closure.ends_at:
        event.add("dtend", closure.ends_at.astimezone(zone))
    event.add("description", "\n".join(closure_lines(closure, zone)))
    event.add("url", absolute("public-map", system.pk))
    return event


def _calendar(system: TrailSystem) -> Calendar:
    """The system's closures, in the active language."""
    zone = zone_of(system)
    calendar = Calendar()
    calendar.add("prodid", "-//Trail status//Scheduled closures//EN")
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("method", "PUBLISH")
    calendar_name = gettext("%(name)s: scheduled closures") % {"name": system.name}
    calendar.add("x-wr-calname", calendar_name)
    calendar.add("x-wr-timezone", zone.key)
    for schedule in calendar_schedules(system):
        schedule.activity_label = activity_label(schedule, system.language)
        calendar.add_component(_closure_event(schedule, system))
    for closure in current_closures(system):
        calendar.add_component(_stretch_event(closure, system, zone))
    calendar.add_missing_timezones()
    return calendar


@public_feed(ttl=FEED_MAX_AGE)
@of_public_system
def calendar_view(request: HttpRequest, system: TrailSystem) -> HttpResponse:
    calendar = _calendar(system)
    response = HttpResponse(calendar.to_ical(), content_type="text/calendar; charset=utf-8")
    response["Content-Disposition"] = f'inline; filename="{system.pk}.ics"'
    return response


# The map's list


@public_feed(ttl=FEED_MAX_AGE)
@of_public_system
def schedules_json_view(request: HttpRequest, system: TrailSystem) -> JsonResponse:
    changes = current_and_upcoming(system)
    body = {
        "trailSystemId": system.pk,
        "timeZone": zone_of(system).key,
        "schedules": [
            {
                "id": change.schedule.pk,
                "trails": [{"id": trail.pk, "name": trail.name} for trail in change.trails],
                "activity": change.activity_label,
                "status": change.schedule.status,
                "endStatus": change.schedule.end_status or None,
                "repeat": change.schedule.repeat,
                "reason": change.schedule.reason,
                "inEffect": change.in_effect,
                "startsAt": iso_ms(change.starts_at),
                "endsAt": iso_ms(change.ends_at),
            }
            for change in changes
        ],
    }
    return JsonResponse(body)


@public_feed(ttl=FEED_MAX_AGE)
@of_public_system
def confirmations_json_view(request: HttpRequest, system: TrailSystem) -> JsonResponse:
    """The trails whose status nobody confirmed within the system's `unconfirmedAfterHours`
    (none while it is off), each with when it was last confirmed (null: never). Apart from the
    published file, whose shape is fixed, and which a confirmation does not recompile."""
    unconfirmed = unconfirmed_statuses(system, now=timezone.now())
    body = {
        "trailSystemId": system.pk,
        "unconfirmedAfterHours": system.unconfirmed_after_hours,
        "unconfirmed": [
            {"trailId": trail_id, "confirmedOn": iso_ms(confirmed_on)}
            for trail_id, confirmed_on in unconfirmed.items()
        ],
    }
    return JsonResponse(body)
