"""Live pages in a real browser (Debian's chromium): the map and the embedded list follow the
stream, fall back to polling without it, and the map is made for a phone."""

import re
import time
from zoneinfo import ZoneInfo

import pytest
from django.db import transaction
from playwright.sync_api import expect

from core.compiles import request_compile
from demo.loader import load_demo
from tests.browser import save_screenshot
from tests.factories import TrailFactory, TrailSystemFactory
from trails.models import Trail

pytestmark = pytest.mark.django_db(transaction=True)

EVENTS = re.compile(r".*/map/[^/]+/events$")
LIVE = re.compile(r"^Live · updated \d")


@pytest.fixture
def live(live_server, settings):
    """The live server as the public base of every link. Polling only every ten minutes: what
    changes within seconds came by the stream."""
    settings.PUBLIC_BASE_URL = live_server.url
    settings.MAP_POLL_SECONDS = 600
    return live_server


def small_system():
    system = TrailSystemFactory(name="Pine Hill Nordic")
    TrailFactory(trail_system=system, name="Meadow Loop", status="Open", order=1)
    TrailFactory(trail_system=system, name="Ridge Run", status="Caution", order=2)
    with transaction.atomic():
        request_compile(system, reason="test")
    return system


@pytest.mark.serial  # measures time
def test_a_change_through_the_api_shows_on_the_map_and_the_list_within_two_seconds(
    live, browser, client_for
):
    system = small_system()
    trail = system.trails.get(name="Meadow Loop")
    context = browser.new_context(viewport={"width": 1000, "height": 700}, locale="en-US")
    map_page, list_page = context.new_page(), context.new_page()
    map_page.goto(f"{live.url}/map/{system.pk}")
    list_page.goto(f"{live.url}/embed/{system.pk}/list")
    line = map_page.locator(f'path.trail-line[data-trail-id="{trail.pk}"]')
    row = list_page.locator(f'tr[data-trail-id="{trail.pk}"]')
    expect(line).to_have_attribute("data-status", "Open")
    expect(row).to_have_attribute("data-status", "Open")
    expect(map_page.locator("#map-status")).to_have_text(LIVE)
    expect(list_page.locator("#list-status")).to_have_text(LIVE)
    reloads = []
    for page in (map_page, list_page):
        page.on("framenavigated", lambda frame: reloads.append(frame.url))

    response = client_for(system.owner).patch(
        f"/api/v1/trails/{trail.pk}", {"status": "Closed"}, format="json"
    )
    assert response.status_code == 200
    answered = time.monotonic()

    expect(line).to_have_attribute("data-status", "Closed", timeout=2000)
    expect(row).to_have_attribute("data-status", "Closed", timeout=2000)
    assert time.monotonic() - answered < 2.0
    assert reloads == []  # no page was loaded again
    expect(row.locator(".status")).to_have_text("Closed")
    expect(map_page.locator(".group-closed")).to_contain_text("Meadow Loop")
    expect(map_page.locator("#map-changes")).to_have_text("Meadow Loop: Closed")
    save_screenshot(map_page, "live-map-after-change", full_page=False)
    save_screenshot(list_page, "live-list-after-change")
    context.close()


def set_status(client_for, trail: Trail, status: str) -> None:
    response = client_for(trail.trail_system.owner).patch(
        f"/api/v1/trails/{trail.pk}", {"status": status}, format="json"
    )
    assert response.status_code == 200


def test_without_the_stream_the_pages_poll_and_say_so(live, page, client_for, settings):
    settings.MAP_POLL_SECONDS = 1
    system = small_system()
    trail = system.trails.get(name="Ridge Run")
    # A stream refused, as a WSGI worker refuses it in the production topology.
    page.route(EVENTS, lambda route: route.fulfill(status=503, body="no streams here"))
    page.goto(f"{live.url}/map/{system.pk}")
    status = page.locator("#map-status")
    expect(status).to_have_attribute("data-connection", "polling")
    expect(status).to_have_text(re.compile(r"^Updated \d"))

    set_status(client_for, trail, "Open")

    line = page.locator(f'path.trail-line[data-trail-id="{trail.pk}"]')
    expect(line).to_have_attribute("data-status", "Open", timeout=5000)

    page.goto(f"{live.url}/embed/{system.pk}/list")
    expect(page.locator("#list-status")).to_have_attribute("data-connection", "polling")
    set_status(client_for, trail, "Closed")
    expect(page.locator(f'tr[data-trail-id="{trail.pk}"]')).to_have_attribute(
        "data-status", "Closed", timeout=5000
    )


def test_a_lost_stream_says_reconnecting_and_the_page_is_live_again_when_it_is_back(
    live, page, client_for
):
    system = small_system()
    trail = system.trails.get(name="Meadow Loop")
    page.route(EVENTS, lambda route: route.abort("connectionreset"))
    page.goto(f"{live.url}/map/{system.pk}")
    status = page.locator("#map-status")
    expect(status).to_have_text(re.compile(r"^Reconnecting… · updated \d"))
    expect(status).to_have_attribute("data-connection", "reconnecting")
    set_status(client_for, trail, "Closed")

    page.unroute(EVENTS)

    expect(status).to_have_text(LIVE, timeout=10_000)
    # The stream's first event names the file compiled meanwhile: the page catches up.
    line = page.locator(f'path.trail-line[data-trail-id="{trail.pk}"]')
    expect(line).to_have_attribute("data-status", "Closed")


def test_the_map_and_the_list_say_when_in_the_system_s_zone_named(live, browser):
    """Not in the rider's phone's zone: the closures and schedules beside it are the system's."""
    system = small_system()
    system.time_zone = "America/Denver"
    system.save(update_fields=["time_zone"])
    system.refresh_from_db()
    local = system.compiled_on.astimezone(ZoneInfo("America/Denver"))
    zone = "MST" if not local.dst() else "MDT"
    said = f"Live · updated {local:%I:%M %p} {zone}"
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, locale="en-US", timezone_id="Asia/Tokyo"
    )
    page = context.new_page()
    page.goto(f"{live.url}/map/{system.pk}")
    expect(page.locator("#map-status")).to_have_text(said)
    page.goto(f"{live.url}/embed/{system.pk}/list")
    expect(page.locator("#list-status")).to_have_text(said)
    context.close()


def test_the_map_on_a_phone(live, browser):
    """390 x 844: the legend folded, "Get alerts" in reach above the trail list, the first view
    on the main trails and lifts (not the 26 km Divide Trail), and when the data was updated."""
    system, _ = load_demo()
    outlying = list(Trail.objects.filter(trail_system=system, name="Divide Trail"))
    assert outlying
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, locale="en-US"
    )
    page = context.new_page()
    page.goto(f"{live.url}/map/{system.pk}")
    expect(page.locator("path.lift-line").first).to_be_visible()
    status = page.locator("#map-status")
    expect(status).to_have_text(LIVE)

    legend = page.locator("#legend")
    expect(legend).not_to_have_attribute("open", "")
    expect(legend.locator("ul")).to_be_hidden()
    alerts = page.locator(".site-header .alerts-link")
    expect(alerts).to_be_in_viewport()
    box = alerts.bounding_box()
    assert box["y"] + box["height"] <= 844
    trail_list = page.locator("#trail-groups").bounding_box()
    assert box["y"] < trail_list["y"]

    map_box = page.locator("#map").bounding_box()

    def inside(rect: dict) -> bool:
        return (
            rect["x"] >= map_box["x"] - 1
            and rect["y"] >= map_box["y"] - 1
            and rect["x"] + rect["width"] <= map_box["x"] + map_box["width"] + 1
            and rect["y"] + rect["height"] <= map_box["y"] + map_box["height"] + 1
        )

    lifts = page.locator("path.lift-line")
    assert lifts.count() >= 3
    assert all(inside(lifts.nth(i).bounding_box()) for i in range(lifts.count()))
    for trail in outlying:
        path = page.locator(f'path.trail-line[data-trail-id="{trail.pk}"]').first
        assert not inside(path.bounding_box())
    save_screenshot(page, "map-phone-first-view", docs=True, full_page=False)

    page.locator("#legend summary").tap()
    expect(legend.locator("ul")).to_be_visible()
    save_screenshot(page, "map-phone-legend", docs=True, full_page=False)
    alerts.tap()
    expect(page.locator("#subscribe").get_by_label("E-mail")).to_be_in_viewport()
    save_screenshot(page, "map-phone-alerts", docs=True, full_page=False)
    context.close()


def test_what_changed_shows_whole_on_a_phone_clear_of_the_map_controls(live, browser):
    """390 x 844: the note saying what changed sits clear of the zoom buttons, the view switch
    and the live status line (the switch hid the end of "Closed")."""
    system, _ = load_demo()
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, locale="en-US"
    )
    page = context.new_page()
    page.goto(f"{live.url}/map/{system.pk}")
    expect(page.locator("#map-status")).to_have_text(LIVE)

    with transaction.atomic():
        Trail.objects.filter(trail_system=system, name="Chair 1").update(status="Closed")
        request_compile(system, reason="test")

    note = page.locator("#map-changes")
    expect(note).to_have_text("Chair 1: Closed")
    shown = note.bounding_box()
    for control in (".view-switch", ".leaflet-control-zoom", "#map-status"):
        other = page.locator(control).bounding_box()
        apart = (
            shown["x"] + shown["width"] <= other["x"]
            or other["x"] + other["width"] <= shown["x"]
            or shown["y"] + shown["height"] <= other["y"]
            or other["y"] + other["height"] <= shown["y"]
        )
        assert apart, f"the note overlaps {control}"
    save_screenshot(page, "map-phone-change", full_page=False)
    context.close()
