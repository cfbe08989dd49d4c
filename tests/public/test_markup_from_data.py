"""Text from data is text on the public pages (issue 26, item 3): a trail, a point or a notice
whose name holds markup shows that markup as characters, in the map, its tooltips and popups
(hovered and tapped), its list, the embedded map and the embedded status list. No element is
made from it and no request leaves for it."""

import pytest
from django.db import transaction
from playwright.sync_api import expect

from core.compiles import request_compile
from tests.browser import save_screenshot
from tests.factories import PointFactory, TrailFactory, TrailSystemFactory, UpdateFactory, line

pytestmark = pytest.mark.django_db(transaction=True)

NAMES = [
    '<img src="/xss/trail-img.png">',
    '<a href="https://evil.test/">Ridge</a>',
    '<meta http-equiv="refresh" content="0;url=/xss/refreshed">',
    "<style>body { background: rgb(255, 0, 0) !important }</style>",
]
POINT_NAME = '<img src="/xss/point-img.png">'
NOTICE = '<img src="/xss/notice-img.png"> Ice on <a href="https://evil.test/">the bridge</a>'
# What a name must never become, and the requests it must never make.
MADE_FROM_DATA = 'img[src*="xss"], a[href*="evil.test"], meta[http-equiv="refresh"][content*="xss"]'
STYLE_FROM_DATA = (
    "[...document.querySelectorAll('style')].some(s => s.textContent.includes('255, 0, 0'))"
)


@pytest.fixture
def system(live_server, settings):
    settings.PUBLIC_BASE_URL = live_server.url
    system = TrailSystemFactory(name="Markup Hill")
    for position, name in enumerate(NAMES):
        TrailFactory(
            trail_system=system,
            name=name,
            description=name,
            order=position,
            geometry=line(-113.95, 45.69 + 0.01 * position),
        )
    PointFactory(
        trail_system=system, name=POINT_NAME, marker_class="lodge", lat=45.705, lng=-113.951
    )
    UpdateFactory(trail_system=system, description=NOTICE, severity="warning")
    with transaction.atomic():
        request_compile(system, reason="test")
    return system


@pytest.fixture
def phone(browser):
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, locale="en-US"
    )
    yield context
    context.close()


def watch(page) -> list[str]:
    """Every request the page makes that data could have caused."""
    requests: list[str] = []
    page.on(
        "request",
        lambda request: (
            requests.append(request.url)
            if "xss" in request.url or "evil.test" in request.url
            else None
        ),
    )
    return requests


def assert_nothing_made_from_data(page, url: str, requests: list[str]) -> None:
    page.wait_for_timeout(500)  # a refresh of 0 seconds would have left by now
    assert page.url == url
    assert page.locator(MADE_FROM_DATA).count() == 0
    assert not page.evaluate(STYLE_FROM_DATA)
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background != "rgb(255, 0, 0)"
    assert requests == []


def trail_line(page, position: int):
    return page.locator("path.trail-line").nth(position)


def settled_box(page, locator) -> dict:
    """The line's box once the map has stopped moving: the first view opens at the system's
    location and then fits its trails, and a tap aimed during that move misses the line."""
    box = locator.bounding_box()
    for _ in range(50):
        page.wait_for_timeout(100)
        again = locator.bounding_box()
        if again == box:
            return box
        box = again
    raise AssertionError("the map kept moving for 5 s")


@pytest.mark.parametrize("path", ["map", "embed"])
def test_names_with_markup_are_text_in_the_map_its_tooltips_and_popups(
    live_server, system, page, phone, path
):
    url = f"{live_server.url}/{path}/{system.pk}"
    requests = watch(page)
    page.goto(url)
    expect(page.locator("path.trail-line")).to_have_count(len(NAMES))
    if path == "map":
        for name in NAMES:
            expect(page.locator("#trail-groups")).to_contain_text(name)
        expect(page.locator("#notices")).to_contain_text(NOTICE)

    for position, name in enumerate(NAMES):
        trail_line(page, position).hover()
        expect(page.locator(".leaflet-tooltip", has_text=name)).to_be_visible()
        assert page.locator(".leaflet-tooltip *:not(span)").count() == 0
        if position == 0:
            save_screenshot(page, f"markup-as-text-{path}-tooltip", full_page=False)
        page.mouse.move(0, 0)
    assert_nothing_made_from_data(page, url, requests)

    for position, name in enumerate(NAMES):  # a fresh page each: nothing open in the way
        tapping = phone.new_page()
        tapped = watch(tapping)
        tapping.goto(url)
        box = settled_box(tapping, trail_line(tapping, position))
        tapping.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        expect(tapping.locator(".leaflet-popup-content .popup-title")).to_have_text(name)
        expect(tapping.locator(".leaflet-popup-content .popup-description")).to_have_text(name)
        expect(tapping.locator(".leaflet-tooltip", has_text=name)).to_be_visible()
        if position == 1:
            tapping.wait_for_timeout(300)  # the popup's fade-in
            save_screenshot(tapping, f"markup-as-text-{path}-popup", full_page=False)
            tapping.locator(".leaflet-popup-close-button").click()
            tapping.locator("[data-point-id]").tap()
            expect(tapping.locator(".leaflet-popup-content .popup-title")).to_have_text(POINT_NAME)
        assert_nothing_made_from_data(tapping, url, tapped)
        tapping.close()


def test_names_with_markup_are_text_in_the_embedded_list(live_server, system, page):
    url = f"{live_server.url}/embed/{system.pk}/list"
    requests = watch(page)
    page.goto(url)

    rows = page.locator("tr.trail-row th")
    expect(rows).to_have_text(NAMES)
    assert_nothing_made_from_data(page, url, requests)
    save_screenshot(page, "markup-as-text-list", full_page=False)

    # The live script swaps in the table read again: still text.
    with transaction.atomic():
        system.trails.update(status="Closed")
        request_compile(system, reason="test")
    expect(page.locator('tr.trail-row[data-status="Closed"]')).to_have_count(len(NAMES))
    expect(rows).to_have_text(NAMES)
    assert_nothing_made_from_data(page, url, requests)
