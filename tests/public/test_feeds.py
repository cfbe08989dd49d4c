"""The public feeds: /feeds/<id>.atom (parsed by feedparser, as a feed reader does),
/feeds/<id>.ics (parsed by icalendar) and the map's /feeds/<id>/schedules.json."""

from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

import feedparser
import pytest
from django.utils import timezone
from icalendar import Calendar

from core.actors import Actor, Via
from schedules.services import apply_due_schedules, create_schedule
from tests.factories import TrailActivityFactory, TrailFactory, TrailSystemFactory
from trails.services import change_trail
from updates.services import create_update

pytestmark = pytest.mark.django_db

MANAGER = Actor("manager-uid", Via.ID_TOKEN)
DENVER = ZoneInfo("America/Denver")


@pytest.fixture
def system():
    return TrailSystemFactory(name="Pine Hill Nordic", time_zone="America/Denver")


@pytest.fixture
def trail(system):
    trail = TrailFactory(trail_system=system, name="Race Course", status="Open")
    TrailActivityFactory(trail=trail, value="nordic-skate", status="Open")
    return trail


def parsed(client, system) -> feedparser.FeedParserDict:
    response = client.get(f"/feeds/{system.pk}.atom")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/atom+xml")
    feed = feedparser.parse(response.content)
    assert not feed.bozo, feed.get("bozo_exception")
    assert feed.version == "atom10"
    return feed


def notice(system, text: str, **fields):
    return create_update(
        system=system, **{"type": "notice", "description": text, **fields}, actor=MANAGER
    )


def test_the_atom_feed_is_valid_atom_and_lists_a_notice_created_a_moment_before(
    client, system, trail
):
    change_trail(trail=trail, status="Closed", actor=MANAGER)
    notice(system, "Groomers out tonight on the upper loops.", severity="warning")
    feed = parsed(client, system)
    assert feed.feed.title == "Pine Hill Nordic: trail status and updates"
    assert feed.feed.link.endswith(f"/map/{system.pk}")
    assert feed.feed.language == "en"
    newest = feed.entries[0]
    assert newest.title == "Warning: Groomers out tonight on the upper loops."
    assert "Groomers out tonight" in newest.summary
    assert newest.id.endswith("#update-" + system.updates.get().pk)
    status = feed.entries[1]
    assert status.title == "Race Course: Closed, Skate skiing closed"
    assert "Was: Open" in status.summary
    published = [entry.published_parsed for entry in feed.entries]
    assert published == sorted(published, reverse=True)


def test_snow_reports_conditions_and_a_scheduled_change_are_listed(client, system, trail):
    create_update(
        system=system,
        type="snowReport",
        base_depth=120,
        twenty_four_hours=8,
        actor=MANAGER,
    )
    create_update(
        system=system,
        type="surfaceConditions",
        conditions=["icy"],
        trail_ids=[trail.pk],
        actor=MANAGER,
    )
    start = timezone.now() + timedelta(minutes=5)
    create_schedule(
        system=system,
        trail_ids=[trail.pk],
        status="Closed",
        repeat="once",
        starts_at=start.astimezone(DENVER).replace(tzinfo=None, second=0, microsecond=0)
        + timedelta(minutes=1),
        actor=MANAGER,
    )
    apply_due_schedules(now=start + timedelta(minutes=2))
    titles = [entry.title for entry in parsed(client, system).entries]
    assert "Race Course: Closed, Skate skiing closed" in titles
    assert "Conditions on Race Course: Icy" in titles
    assert "Snow report: Base 120 in, Last 24 h 8 in" in titles
    summaries = [entry.summary for entry in parsed(client, system).entries]
    assert any("Scheduled change" in summary for summary in summaries)


def test_a_french_system_gets_a_french_feed(client, trail):
    system = trail.trail_system
    system.language = "fr"
    system.save()
    change_trail(trail=trail, status="Closed", actor=MANAGER)
    feed = parsed(client, system)
    assert feed.feed.language == "fr"
    assert feed.feed.title == "Pine Hill Nordic : état des sentiers et nouvelles"
    assert feed.entries[0].title == "Race Course : Fermé, Ski de fond pas de patin fermé"


def test_text_from_data_is_text_in_the_feed(client, system):
    notice(system, "<script>alert(1)</script> & <b>bold</b>")
    entry = parsed(client, system).entries[0]
    assert entry.title_detail.type == "text/plain"
    assert entry.title == "Information: <script>alert(1)</script> & <b>bold</b>"
    assert entry.summary_detail.type == "text/html"  # shown as the text it is:
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;" in entry.summary


def test_a_character_xml_cannot_hold_is_left_out_of_the_feed(client, system):
    """A vertical tab or another control character in a notice's text: the feed still
    answers, with the text around it."""
    notice(system, "Ice\x0b on the\x01 upper loop\nKeep\x1f off")
    entry = parsed(client, system).entries[0]
    assert entry.title == "Information: Ice on the upper loop"
    assert "Keep off" in entry.summary


def test_hidden_trails_stay_out_of_the_feed(client, system):
    hidden = TrailFactory(trail_system=system, name="Secret Path", hidden=True, status="Open")
    change_trail(trail=hidden, status="Closed", actor=MANAGER)
    create_update(
        system=system,
        type="surfaceConditions",
        conditions=["icy"],
        trail_ids=[hidden.pk],
        actor=MANAGER,
    )
    assert parsed(client, system).entries == []


@pytest.mark.parametrize("suffix", [".atom", ".ics", "/schedules.json"])
def test_an_inactive_or_unknown_system_has_no_feeds(client, suffix):
    inactive = TrailSystemFactory(inactive=True)
    assert client.get(f"/feeds/{inactive.pk}{suffix}").status_code == 404
    assert client.get(f"/feeds/nope{suffix}").status_code == 404


def test_the_map_names_its_feeds(client, system):
    page = client.get(f"/map/{system.pk}").content.decode()
    assert (
        f'<link rel="alternate" type="application/atom+xml" title="Atom feed" '
        f'href="/feeds/{system.pk}.atom">' in page
    )
    assert f'type="text/calendar" title="Calendar of closures" href="/feeds/{system.pk}.ics"' in (
        page
    )


def ics(client, system) -> Calendar:
    response = client.get(f"/feeds/{system.pk}.ics")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/calendar; charset=utf-8"
    return Calendar.from_ical(response.content)


def next_saturday() -> datetime:
    today = timezone.now().astimezone(DENVER).date()
    return datetime.combine(today + timedelta(days=(5 - today.weekday()) % 7 + 7), time(16))


def test_the_calendar_holds_a_scheduled_closure(client, system, trail):
    start = next_saturday()
    closure(system, trail, start, hours=16, made=timezone.now(), reason="Giant slalom race")
    calendar = ics(client, system)
    assert str(calendar["x-wr-calname"]) == "Pine Hill Nordic: scheduled closures"
    (event,) = calendar.walk("VEVENT")
    assert str(event["summary"]) == "Closed: Race Course"
    assert str(event["description"]) == "Giant slalom race"
    assert event.decoded("dtstart") == start.replace(tzinfo=DENVER)
    assert event.decoded("dtend") == (start + timedelta(hours=16)).replace(tzinfo=DENVER)
    assert event["dtstart"].params["TZID"] == "America/Denver"
    assert [tz["tzid"] for tz in calendar.walk("VTIMEZONE")] == ["America/Denver"]


def test_a_daily_closure_is_one_recurring_event(client, system, trail):
    last = (timezone.now() + timedelta(days=60)).astimezone(DENVER).date()
    create_schedule(
        system=system,
        trail_ids=[trail.pk],
        status="Open",
        end_status="Closed",
        repeat="daily",
        start_time=time(8, 30),
        end_time=time(21),
        last_date=last,
        actor=MANAGER,
    )
    (event,) = ics(client, system).walk("VEVENT")
    start, end = event.decoded("dtstart"), event.decoded("dtend")
    assert (start.time(), end.time(), end - start) == (
        time(21),
        time(8, 30),
        timedelta(hours=11, minutes=30),
    )
    rule = event["rrule"]
    assert rule["FREQ"] == ["DAILY"]
    # The last closure begins at 21:00 on the last day (its window's end).
    assert rule["UNTIL"][0] == datetime.combine(last, time(21), DENVER).astimezone(ZoneInfo("UTC"))


def test_a_schedule_that_closes_nothing_is_not_in_the_calendar(client, system, trail):
    create_schedule(
        system=system,
        trail_ids=[trail.pk],
        status="Open",
        repeat="daily",
        start_time=time(8),
        actor=MANAGER,
    )
    assert ics(client, system).walk("VEVENT") == []


def closure(system, trail, start: datetime, *, made: datetime, reason: str, hours: int = 3):
    """A one-off closure from `start` (local) for `hours`, scheduled at `made`."""
    return create_schedule(
        system=system,
        trail_ids=[trail.pk],
        status="Closed",
        repeat="once",
        starts_at=start,
        ends_at=start + timedelta(hours=hours),
        reason=reason,
        actor=MANAGER,
        now=made,
    )


def local_minute(moment: datetime) -> datetime:
    return moment.astimezone(DENVER).replace(tzinfo=None, second=0, microsecond=0)


def test_the_map_list_shows_what_is_coming_and_what_is_in_effect(client, system, trail):
    now = timezone.now()
    other = TrailFactory(trail_system=system, name="Upper Meadow", status="Open")
    coming = closure(
        system, other, local_minute(now + timedelta(days=2)), made=now, reason="Trail work"
    )
    start = local_minute(now - timedelta(minutes=5))  # made ten minutes ago, for five minutes ago
    current = closure(
        system, trail, start, made=now - timedelta(minutes=10), reason="Giant slalom race"
    )
    apply_due_schedules()
    response = client.get(f"/feeds/{system.pk}/schedules.json")
    assert response["Access-Control-Allow-Origin"] == "*"
    body = response.json()
    assert body["timeZone"] == "America/Denver"
    first, second = body["schedules"]
    assert (first["id"], first["inEffect"], first["reason"]) == (
        current.pk,
        True,
        "Giant slalom race",
    )
    assert first["trails"] == [{"id": trail.pk, "name": "Race Course"}]
    ends = datetime.fromisoformat(first["endsAt"]).astimezone(DENVER).replace(tzinfo=None)
    assert ends == start + timedelta(hours=3)
    assert (second["id"], second["inEffect"], second["reason"]) == (coming.pk, False, "Trail work")
    starts = datetime.fromisoformat(second["startsAt"]).astimezone(DENVER).replace(tzinfo=None)
    assert starts == local_minute(now + timedelta(days=2))
    # Reopened by hand: the closure's reason no longer describes the trail.
    change_trail(trail=trail, status="Open", actor=MANAGER)
    body = client.get(f"/feeds/{system.pk}/schedules.json").json()
    assert [change["id"] for change in body["schedules"]] == [coming.pk]
