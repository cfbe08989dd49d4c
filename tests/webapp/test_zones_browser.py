"""Every form that takes a date and time names the zone it reads them in and the time there
now (issue 33), and it is the system's (issue 42): the schedule's, the update's expiry and the
grooming's "Groomed at", on a phone; the pages that list times say them in that zone too."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from apikeys.models import User
from core.actors import Actor, Via
from demo.loader import DEMO_OWNER_UID, load_demo
from grooming.models import GroomingPass
from grooming.sessions import Position, end_running_session, receive_positions
from grooming.trackers import create_tracker
from tests.browser import save_screenshot
from tests.factories import MembershipFactory, TrailFactory, TrailSystemFactory
from tests.grooming.geo import path
from tests.webapp.test_browser import sign_in
from trails.timezones import zone_of

pytestmark = pytest.mark.django_db(transaction=True)


def said_now(zone) -> list[str]:
    """ "America/Boise, now 05:03", for this minute and the ones either side: the page may have
    been drawn in the minute before this check, or the check made just before the turn."""
    now = timezone.now()
    return [
        f"{zone.key}, now {timezone.localtime(now + timedelta(minutes=shift), zone):%H:%M}"
        for shift in (-1, 0, 1)
    ]


def expect_zone(help_text, zone) -> None:
    expect(help_text).to_contain_text(f"Times are in {zone.key}, now ")
    assert any(words in help_text.inner_text() for words in said_now(zone))


def test_the_date_and_time_forms_name_their_zone_and_its_time_now(live_server, browser):
    system, _ = load_demo()
    zone = zone_of(system)
    assert zone.key != "UTC"
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
    page = context.new_page()
    sign_in(page, live_server, User.objects.get(pk=DEMO_OWNER_UID))

    page.goto(f"{live_server.url}/admin/schedules/schedule/add/?trail_system={system.pk}")
    expect_zone(page.locator(".field-starts_at .help").first, zone)
    expect_zone(page.locator(".field-start_time .help").first, zone)
    page.locator("#id_starts_at_0").scroll_into_view_if_needed()
    save_screenshot(page, "zones-schedule", full_page=False)

    page.goto(f"{live_server.url}/admin/updates/update/add/?trail_system={system.pk}")
    expect_zone(page.locator(".field-expiration_date .help:not(.timezonewarning)").first, zone)

    # The list of updates says its times in that zone too, and names it.
    page.goto(f"{live_server.url}/admin/updates/update/")
    expect(page.locator("#content h2").first).to_have_text(f"Times are in {zone.key}.")
    save_screenshot(page, "zones-update-list", full_page=False)
    for name in ("updates/subscriber", "updates/delivery", "webhooks/webhookendpoint"):
        page.goto(f"{live_server.url}/admin/{name}/")
        expect(page.locator("#content h2").first).to_have_text(f"Times are in {zone.key}.")
    page.goto(f"{live_server.url}/admin/schedules/schedule/")
    expect(page.locator("#content h2").first).to_have_text(f"Times are in {zone.key}.")
    save_screenshot(page, "zones-schedule-list", full_page=False)

    page.goto(f"{live_server.url}/admin/trails/trailsystem/{system.pk}/grooming/")
    expect_zone(page.locator(".form-row:has(#id_groomed_at) .help"), zone)
    expect(page.locator(".zone-note")).to_have_text(f"Times are in {zone.key}.")
    page.locator("#id_groomed_at").scroll_into_view_if_needed()
    save_screenshot(page, "zones-grooming", full_page=False)
    context.close()


def test_a_trails_history_says_its_groomings_as_times_in_the_systems_zone_by_the_machine(
    live_server, browser
):
    """A tracker's grooming is the machine's, by its name (not the account that made the
    tracker), at a time written as a time in the system's zone, which the page names."""
    system = TrailSystemFactory(name="Pine Hill Nordic", time_zone="America/Boise")
    owner = MembershipFactory(trail_system=system, user__uid="owner", role="Owner").user
    trail = TrailFactory(
        trail_system=system,
        name="Meadow Loop",
        geometry={"type": "LineString", "coordinates": path([(0, 0), (1500, 0)], step=50)},
    )
    tracker = create_tracker(
        system=system, name="PistenBully 1", actor=Actor("owner", Via.WEB_APP)
    ).tracker
    start = timezone.now() - timedelta(minutes=3)
    receive_positions(
        tracker=tracker,
        positions=[
            Position(lng, lat, start + timedelta(seconds=2 * i))
            for i, (lng, lat) in enumerate(path([(0, 0), (1500, 0)], step=25))
        ],
    )
    end_running_session(tracker=tracker)
    groomed_at = GroomingPass.objects.get().groomed_at
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
    page = context.new_page()
    sign_in(page, live_server, owner)
    page.goto(live_server.url + reverse("admin:trails_trail_history", args=[trail.pk]))
    expect(page.locator(".zone-note")).to_have_text("Times are in America/Boise.")
    row = page.locator(".status-history tbody tr", has_text="Groomed")
    expect(row.locator("[data-label=Who]")).to_have_text("PistenBully 1")
    shown = timezone.localtime(groomed_at, zone_of(system))
    new = row.locator(".history-new")
    expect(new).to_contain_text(f"{shown:%b}")
    expect(new).to_contain_text(f"{shown:%-I:%M}")
    expect(new).not_to_contain_text("Z")
    save_screenshot(page, "history-grooming-by-tracker-phone", full_page=False)
    context.close()
