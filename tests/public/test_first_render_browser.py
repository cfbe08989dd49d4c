"""The phone's first render (issue 32): the map's lines are drawn before the list, the filter
and the panel are built, and the page asks for no missing favicon."""

import pytest
from django.db import transaction
from playwright.sync_api import expect

from core.compiles import request_compile
from tests.factories import TrailActivityFactory, TrailFactory, TrailSystemFactory

pytestmark = pytest.mark.django_db(transaction=True)

# Set before the page's scripts run: whether the trail list was already built when the first
# trail line was drawn (built in the same task, the lines would wait for it).
ORDER_MARK = """
new MutationObserver(function (changes, observer) {
  if (document.querySelector("path.trail-line")) {
    window.listWithFirstLine = Boolean(document.querySelector("#trail-groups .trail-item"));
    observer.disconnect();
  }
}).observe(document, { childList: true, subtree: true });
"""


def test_the_lines_are_drawn_before_the_list_and_every_request_is_answered(
    live_server, browser, settings
):
    settings.PUBLIC_BASE_URL = live_server.url
    system = TrailSystemFactory(name="Pine Hill Nordic")
    for order, name in enumerate(("Meadow Loop", "Ridge Run", "Birch Way")):
        trail = TrailFactory(trail_system=system, name=name, status="Open", order=order)
        TrailActivityFactory(trail=trail, value="skiing")
    with transaction.atomic():
        request_compile(system, reason="test")
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = context.new_page()
    page.add_init_script(ORDER_MARK)
    failed = []
    page.on("response", lambda r: failed.append(r.url) if r.status >= 400 else None)

    page.goto(f"{live_server.url}/map/{system.pk}")

    expect(page.locator("#trail-groups .trail-item")).to_have_count(3)
    expect(page.locator("#activity-filter option")).to_have_count(2)
    assert page.evaluate("window.listWithFirstLine") is False
    assert page.locator("path.trail-line").count() == 3
    page.wait_for_load_state("networkidle")
    assert failed == []
    context.close()
