"""Closed stretches as riders see them, in Chromium at a phone's size: the stretch drawn in the
closed style over its trail while the rest keeps its own colour, its popup, "Partly closed" in
the list and in the embedded list, and the stretch gone once it is reopened."""

import re
from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone
from playwright.sync_api import expect

from closures.services import create_closure, end_closure
from core.actors import Actor, Via
from publishing.scheduling import record_compile_request
from tests.factories import TrailFactory, TrailSystemFactory
from tests.grooming.geo import path
from trails.models import Trail

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = {"width": 390, "height": 844}
PATROL = Actor("patrol-uid", Via.ID_TOKEN)
EVENTS = re.compile(r".*/map/[^/]+/events$")


def ridge_loop(system) -> Trail:
    """A 3 km trail, open, whose middle kilometre the tests close."""
    return TrailFactory(
        trail_system=system,
        name="Ridge Loop",
        status="Open",
        geometry={"type": "LineString", "coordinates": path([(0, 0), (3000, 600)], step=50)},
    )


def test_a_closed_stretch_on_the_public_map_and_in_the_lists(
    live_server, page, screenshot, settings
):
    settings.PUBLIC_BASE_URL = live_server.url
    system = TrailSystemFactory(name="Pine Hill Nordic", time_zone="America/Denver")
    ridge = ridge_loop(system)
    TrailFactory(
        trail_system=system,
        name="Meadow",
        status="Open",
        geometry={"type": "LineString", "coordinates": path([(0, 400), (2000, 800)], step=50)},
    )
    with transaction.atomic():
        record_compile_request(system, reason="test")
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server.url}/map/{system.pk}")
    expect(page.locator(f'path.trail-line[data-trail-id="{ridge.pk}"]')).to_have_count(1)
    ends = timezone.now() + timedelta(hours=3)
    closure = create_closure(
        trail=ridge,
        actor=PATROL,
        start=1000.0,
        end=2000.0,
        reason="avalancheControl",
        note="Control work <b>above</b> the hut",
        ends_at=ends,
        detour="Valley road",
    )

    stretch = page.locator(f'path.closure-line[data-closure-id="{closure.pk}"]')
    expect(stretch).to_be_visible(timeout=10_000)  # the live stream's publication
    expect(page.locator(f'path.trail-line[data-trail-id="{ridge.pk}"]')).to_have_attribute(
        "data-status", "Open"
    )
    item = page.locator(".trail-item", has_text="Ridge Loop")
    expect(item.locator(".partly-closed")).to_contain_text("Partly closed: Avalanche control")
    expect(item.locator(".partly-closed")).to_contain_text("until")
    stretch.click()
    popup = page.locator(".closure-popup")
    expect(popup).to_contain_text("Closed stretch: 0.6 mi")  # the system counts in miles
    expect(popup).to_contain_text("Avalanche control")
    expect(popup.locator(".closure-note")).to_have_text("Control work <b>above</b> the hut")
    expect(popup).to_contain_text("Detour: Valley road")
    page.wait_for_timeout(400)  # the popup's fade-in
    screenshot("map-phone-closed-stretch", docs=True)

    page.goto(f"{live_server.url}/embed/{system.pk}/list")
    row = page.locator(f'tr[data-trail-id="{ridge.pk}"]')
    expect(row.locator(".partly-closed")).to_have_text("Partly closed")
    expect(row.locator(".status")).to_have_text("Open")

    page.goto(f"{live_server.url}/map/{system.pk}")
    expect(stretch).to_be_visible()
    end_closure(closure=closure, actor=PATROL)
    expect(stretch).to_have_count(0, timeout=10_000)
    expect(item.locator(".partly-closed")).to_have_count(0)


def test_the_embedded_list_catches_up_with_a_closure_written_before_its_stream_was_live(
    live_server, page, settings
):
    """The stream's `closures` event of a closure written while the list was not yet live is
    never seen: going live, the list reads its page again."""
    settings.PUBLIC_BASE_URL = live_server.url
    settings.MAP_POLL_SECONDS = 600  # what shows within seconds came from going live
    system = TrailSystemFactory(name="Pine Hill Nordic")
    ridge = ridge_loop(system)
    with transaction.atomic():
        record_compile_request(system, reason="test")
    page.route(EVENTS, lambda route: route.abort("connectionreset"))
    page.goto(f"{live_server.url}/embed/{system.pk}/list")
    status = page.locator("#list-status")
    expect(status).to_have_attribute("data-connection", "reconnecting")
    row = page.locator(f'tr[data-trail-id="{ridge.pk}"]')
    create_closure(trail=ridge, actor=PATROL, start=1000.0, end=2000.0, reason="grooming")

    page.unroute(EVENTS)

    expect(status).to_have_attribute("data-connection", "live", timeout=10_000)
    expect(row.locator(".partly-closed")).to_have_text("Partly closed")
