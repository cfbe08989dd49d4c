"""The map's counted words in a real browser (Debian's chromium): map.js picks gettext's form
for the count by the page language's plural rule."""

import re

import pytest
from django.db import transaction
from playwright.sync_api import expect

from core.compiles import request_compile
from tests.factories import TrailFactory, TrailSystemFactory
from trails.models import Trail

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize(
    ("language", "trails", "last_line"),
    [("en", 4, "and 1 more change"), ("fr", 5, "et 2 autres changements")],
)
def test_the_changes_beyond_the_three_shown_are_counted_with_the_plural_of_their_count(
    live_server, settings, page, language, trails, last_line
):
    settings.PUBLIC_BASE_URL = live_server.url
    settings.MAP_POLL_SECONDS = 600  # the change comes by the stream
    system = TrailSystemFactory(name="Pine Hill Nordic", language=language)
    for order in range(trails):
        TrailFactory(trail_system=system, name=f"Trail {order}", status="Open", order=order)
    with transaction.atomic():
        request_compile(system, reason="test")
    page.goto(f"{live_server.url}/map/{system.pk}")
    expect(page.locator("#map-status")).to_have_attribute("data-connection", "live")

    with transaction.atomic():
        Trail.objects.filter(trail_system=system).update(status="Closed")
        request_compile(system, reason="test")

    changes = page.locator("#map-changes p")
    expect(changes).to_have_count(4)
    expect(changes.nth(0)).to_have_text(re.compile(r"^Trail 0 ?: (Closed|Fermé)$"))
    expect(changes.nth(3)).to_have_text(last_line)
