"""Scheduled changes as people see them, in a real browser at a phone's size: the map's list
with the reason and the times in the system's zone, and the web app's page that makes one.
The screenshots are the docs' (docs/screenshots/, with DOCS_SCREENSHOTS=1)."""

from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from core.actors import Actor, Via
from schedules.models import Schedule
from schedules.services import apply_due_schedules, create_schedule
from tests.factories import MembershipFactory, TrailFactory, TrailSystemFactory, line
from tests.webapp.test_browser import sign_in

pytestmark = pytest.mark.django_db(transaction=True)

DENVER = ZoneInfo("America/Denver")
MANAGER = Actor("manager-uid", Via.ID_TOKEN)
PHONE = {"width": 390, "height": 844}


def local_minute(moment: datetime) -> datetime:
    return moment.astimezone(DENVER).replace(tzinfo=None, second=0, microsecond=0)


def test_the_map_lists_scheduled_changes_with_their_reasons(
    live_server, page, screenshot, settings
):
    settings.PUBLIC_BASE_URL = live_server.url  # where the map finds its published file
    system = TrailSystemFactory(name="Pine Hill Nordic", time_zone="America/Denver")
    race = TrailFactory(trail_system=system, name="Race Course", status="Open")
    night = TrailFactory(trail_system=system, name="Lit Loop", status="Open")
    TrailFactory(trail_system=system, name="Meadow Loop", status="Open", geometry=line(-113.952))
    now = timezone.now()
    start = local_minute(now - timedelta(minutes=5))
    create_schedule(
        system=system,
        trail_ids=[race.pk],
        status="Closed",
        repeat="once",
        starts_at=start,
        ends_at=start + timedelta(hours=16),
        reason="Giant slalom race <b>U16</b>",
        actor=MANAGER,
        now=now - timedelta(minutes=10),
    )
    create_schedule(
        system=system,
        trail_ids=[night.pk],
        status="Closed",
        end_status="Open",
        repeat="daily",
        start_time=local_minute(now + timedelta(hours=2)).time(),
        end_time=time(8, 30),
        reason="Lights off: night grooming",
        actor=MANAGER,
    )
    apply_due_schedules()  # the race closure's start is due: applied, compiled on commit
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server.url}/map/{system.pk}")
    expect(page.locator(f'path.trail-line[data-trail-id="{race.pk}"]')).to_have_attribute(
        "data-status", "Closed"
    )
    items = page.locator("#scheduled .scheduled-change")
    expect(items).to_have_count(2)
    ends = (start + timedelta(hours=16)).strftime("%-I:%M %p")  # the language's (en) clock
    expect(items.first).to_contain_text("Race Course: Closed until")
    # In Denver's time, whatever the browser's zone, and named.
    zone = (start + timedelta(hours=16)).replace(tzinfo=DENVER).tzname()  # MST or MDT
    expect(items.first).to_contain_text(f"{ends} {zone}")
    expect(items.first.locator(".reason")).to_have_text("Giant slalom race <b>U16</b>")
    expect(items.nth(1)).to_contain_text("Lit Loop: Closed")
    expect(items.nth(1)).to_contain_text("(every day)")
    page.locator("#scheduled").scroll_into_view_if_needed()
    screenshot("map-scheduled-changes", docs=True)


def test_a_trustee_schedules_a_closure_on_a_phone(live_server, page, screenshot):
    system = TrailSystemFactory(name="Pine Hill Nordic", time_zone="America/Denver")
    trustee = MembershipFactory(trail_system=system, user__uid="trustee", role="Trustee").user
    trail = TrailFactory(trail_system=system, name="Race Course")
    page.set_viewport_size(PHONE)
    sign_in(page, live_server, trustee)
    page.goto(f"{live_server.url}/admin/schedules/schedule/add/")
    page.select_option("#id_trail_system", system.pk)
    picker = page.locator(".trail-picker")
    picker.locator(".trail-picker-search").fill("race")
    picker.locator(f"input[value='{trail.pk}']").check()
    page.select_option("#id_status", "Closed")
    page.check("input[name=repeat][value=once]")
    day = (timezone.now().astimezone(DENVER) + timedelta(days=3)).date()
    page.fill("#id_starts_at_0", day.isoformat())
    page.fill("#id_starts_at_1", "16:00")
    page.fill("#id_ends_at_0", (day + timedelta(days=1)).isoformat())
    page.fill("#id_ends_at_1", "08:00")
    page.fill("#id_reason", "Giant slalom race")
    screenshot("webapp-schedule", docs=True)
    page.click("input[name=_continue]")
    expect(page.locator(".field-next_change")).to_contain_text(f"{day} 16:00 America/Denver")
    schedule = Schedule.objects.get()
    assert (schedule.start_date, schedule.start_time, schedule.reason) == (
        day,
        time(16),
        "Giant slalom race",
    )
