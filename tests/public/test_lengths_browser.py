"""Lengths on the public map of a French system in miles, on a phone (Chromium, 390 x 844):
the system's unit even when the system document comes after the file is drawn (twins' lengths
read "km" on one load and "mi" on another), with a French decimal comma."""

import time

import pytest
from django.db import transaction
from playwright.sync_api import expect

from core.compiles import request_compile
from tests.browser import save_screenshot
from tests.factories import TrailFactory, TrailSystemFactory

pytestmark = pytest.mark.django_db(transaction=True)


def test_twins_lengths_are_in_the_system_s_unit_with_a_french_decimal_comma(
    live_server, browser, settings
):
    settings.PUBLIC_BASE_URL = live_server.url
    system = TrailSystemFactory(name="Mont Sainte-Anne", language="fr", length_measurement="miles")
    TrailFactory(trail_system=system, name="Boucle", distance=0.4, order=1)
    TrailFactory(trail_system=system, name="Boucle", distance=1.6, order=2)
    with transaction.atomic():
        request_compile(system, reason="test")
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="fr-CA")
    page = context.new_page()

    def late(route):  # the system document after the map's file
        time.sleep(1.0)
        route.continue_()

    page.route("**/legacy/ts/**", late)
    page.goto(f"{live_server.url}/map/{system.pk}")
    details = page.locator(".twin-details")
    expect(details).to_have_count(2)
    expect(details.nth(0)).to_contain_text("0,2 mi")
    expect(details.nth(1)).to_contain_text("1,0 mi")
    page.locator(".twin-details").first.scroll_into_view_if_needed()
    save_screenshot(page, "map-phone-twins-french-miles", full_page=False)
    context.close()
