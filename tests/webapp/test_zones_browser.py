"""Every form that takes a date and time names the zone it reads them in and the time there
now (issue 33): the schedule's (its system's zone), the update's expiry and the grooming's
"Groomed at" (the page's zone), on a phone."""

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from apikeys.models import User
from demo.loader import DEMO_OWNER_UID, load_demo
from tests.browser import save_screenshot
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
    zone, utc = zone_of(system), timezone.get_current_timezone()
    assert zone.key != "UTC"
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
    page = context.new_page()
    sign_in(page, live_server, User.objects.get(pk=DEMO_OWNER_UID))

    page.goto(f"{live_server.url}/admin/schedules/schedule/add/?trail_system={system.pk}")
    expect_zone(page.locator("#id_start_time_helptext, .field-start_time .help").first, zone)
    page.locator("#id_start_time").scroll_into_view_if_needed()
    save_screenshot(page, "zones-schedule", full_page=False)

    page.goto(f"{live_server.url}/admin/updates/update/add/?trail_system={system.pk}")
    expect_zone(
        page.locator("#id_expiration_date_helptext, .field-expiration_date .help").first, utc
    )

    page.goto(f"{live_server.url}/admin/trails/trailsystem/{system.pk}/grooming/")
    expect_zone(page.locator(".form-row:has(#id_groomed_at) .help"), utc)
    page.locator("#id_groomed_at").scroll_into_view_if_needed()
    save_screenshot(page, "zones-grooming", full_page=False)
    context.close()
