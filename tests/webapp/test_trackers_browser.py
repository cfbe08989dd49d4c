"""The Trackers page on a phone (Chromium at 390 x 844): the table's words never broken inside,
"grooming now" readable at a glance, times in the system's zone and named; the new tracker's
URL and secret each with a Copy button; Revoke asks first. Every button is a thumb's size (44 px
high): the page is used in a cab, in gloves."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from core.actors import Actor, Via
from grooming.models import Tracker
from grooming.sessions import Position, receive_positions
from grooming.trackers import create_tracker
from tests.browser import save_screenshot
from tests.factories import MembershipFactory, TrailFactory, TrailSystemFactory
from tests.grooming.geo import ORIGIN, path
from tests.webapp.test_browser import sign_in
from trails.timezones import zone_of

pytestmark = pytest.mark.django_db(transaction=True)

THUMB = 44

# Each word of each cell of the table on one line: none is broken across two.
BROKEN_WORDS = """() => {
  const broken = [];
  document.querySelectorAll("#trackers td").forEach((cell) => {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const match of node.textContent.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const lines = new Set(Array.from(range.getClientRects(), (r) => Math.round(r.top)));
        if (lines.size > 1) broken.push(match[0]);
      }
    }
  });
  return broken;
}"""


def test_the_trackers_page_reads_on_a_phone_copies_and_asks_before_revoking(live_server, browser):
    system = TrailSystemFactory(name="Bear Creek Nordic", time_zone="America/Boise")
    TrailFactory(
        trail_system=system,
        geometry={"type": "LineString", "coordinates": path([(0, 0), (1500, 0)], step=50)},
    )
    trustee = MembershipFactory(trail_system=system, user__uid="groomer", role="Trustee").user
    machine = create_tracker(
        system=system, name="PistenBully Kässbohrer 600", actor=Actor("groomer", Via.WEB_APP)
    ).tracker
    at = timezone.now() - timedelta(minutes=2)
    receive_positions(tracker=machine, positions=[Position(*ORIGIN, at)])
    context = browser.new_context(
        viewport={"width": 390, "height": 844},
        locale="en-US",
        permissions=["clipboard-read", "clipboard-write"],
    )
    page = context.new_page()
    sign_in(page, live_server, trustee)
    page.goto(live_server.url + reverse("admin:trails_trailsystem_trackers", args=[system.pk]))

    expect(page.locator(".zone-note")).to_have_text("Times are in America/Boise.")
    row = page.locator("#trackers tbody tr", has_text="PistenBully")
    machine.refresh_from_db()
    shown = timezone.localtime(machine.last_position_on, zone_of(system))
    expect(row).to_contain_text(shown.strftime("%-I:%M"))
    badge = row.locator(".grooming-now")
    expect(badge).to_have_css("color", "rgb(255, 255, 255)")
    expect(badge).to_have_css("background-color", "rgb(11, 110, 47)")
    assert page.evaluate(BROKEN_WORDS) == []
    assert_thumb_sized(row.get_by_role("button"), count=2)  # End grooming, Revoke
    assert_thumb_sized(page.locator("#add-tracker"))
    save_screenshot(page, "webapp-trackers-phone")

    page.get_by_label("Name").fill("Groomer's phone")
    page.click("#add-tracker")
    secret = page.locator("#tracker-secret").input_value()
    copy = page.locator("#new-tracker .copy-button")
    expect(copy).to_have_count(2)
    assert_thumb_sized(copy, count=2)
    copy.nth(1).click()
    expect(copy.nth(1)).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == secret
    copy.nth(0).click()
    assert page.evaluate("navigator.clipboard.readText()").endswith(f"/track/osmand?id={secret}")
    save_screenshot(page, "webapp-tracker-setup-phone", full_page=False)

    row.get_by_role("button", name="Revoke").click()
    expect(page.locator("#revoke-tracker h2")).to_have_text("Revoke PistenBully Kässbohrer 600?")
    machine.refresh_from_db()
    assert machine.revoked_on is None
    assert_thumb_sized(page.locator("#revoke-tracker :is(button, a)"), count=2)
    save_screenshot(page, "webapp-tracker-revoke-phone", full_page=False)
    page.click("#confirm-revoke")
    expect(page.locator(".messagelist")).to_contain_text(
        "Tracker PistenBully Kässbohrer 600 revoked."
    )
    assert Tracker.objects.get(pk=machine.pk).revoked_on is not None
    context.close()


def assert_thumb_sized(buttons, count: int = 1) -> None:
    expect(buttons).to_have_count(count)
    heights = [box["height"] for box in (b.bounding_box() for b in buttons.all())]
    assert min(heights) >= THUMB, heights
