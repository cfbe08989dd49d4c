"""A Trustee closes the middle kilometre of a trail on a phone (Chromium, 390 x 844): from the
board, two taps on the trail (snapped to its line, the length shown), the reason and until
when; a rider's phone shows the stretch on the public map; reopening is one tap."""

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.db import transaction
from django.utils import timezone
from playwright.sync_api import expect

from closures.models import Closure
from publishing.scheduling import record_compile_request
from tests.factories import MembershipFactory, TrailFactory, TrailSystemFactory
from tests.grooming.geo import path
from tests.webapp.test_browser import sign_in

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = {"width": 390, "height": 844}
DENVER = ZoneInfo("America/Denver")


def next_two_pm() -> datetime:
    now = timezone.now().astimezone(DENVER)
    two = now.replace(hour=14, minute=0, second=0, microsecond=0)
    return two if two > now + timedelta(minutes=5) else two + timedelta(days=1)


def test_a_trustee_closes_the_middle_kilometre_by_tapping_two_points(
    live_server, page, browser, screenshot, settings
):
    settings.PUBLIC_BASE_URL = live_server.url
    system = TrailSystemFactory(name="Pine Hill Nordic", time_zone="America/Denver")
    trustee = MembershipFactory(trail_system=system, user__uid="trustee", role="Trustee").user
    ridge = TrailFactory(
        trail_system=system,
        name="Ridge Loop",
        status="Open",
        geometry={"type": "LineString", "coordinates": path([(0, 0), (3000, 600)], step=50)},
    )
    with transaction.atomic():
        record_compile_request(system, reason="test")
    rider = browser.new_context(viewport=PHONE, locale="en-US").new_page()
    rider.goto(f"{live_server.url}/map/{system.pk}")
    expect(rider.locator(f'path.trail-line[data-trail-id="{ridge.pk}"]')).to_have_count(1)

    page.set_viewport_size(PHONE)
    sign_in(page, live_server, trustee)
    page.goto(f"{live_server.url}/admin/trail-systems/{system.pk}/board/")
    page.locator(f"#trail-{ridge.pk} .close-part").click()
    line = page.locator("#closure-map path.leaflet-interactive").first
    box = line.bounding_box()
    # The line runs east and a little north: its start is the box's bottom-left corner.
    for third in (1, 2):
        page.mouse.click(
            box["x"] + box["width"] * third / 3, box["y"] + box["height"] * (1 - third / 3)
        )
    hint = page.locator("#closure-hint")
    expect(hint).to_contain_text("Closed stretch: 1.0 km")
    page.select_option("#id_reason", "avalancheControl")
    starts, ends = (
        page.locator(f"label[for=id_{name}]").bounding_box() for name in ("starts_at", "ends_at")
    )
    assert starts["y"] < ends["y"]  # From, then Until, as a period reads
    until = next_two_pm()
    page.fill("#id_ends_at", until.strftime("%Y-%m-%dT%H:%M"))
    screenshot("webapp-close-part-of-a-trail", docs=True)
    page.click("#close-stretch")
    expect(page.locator(".closure-item")).to_have_count(1)
    closure = Closure.objects.get()
    assert 950 < closure.from_meters < 1050 and 1950 < closure.to_meters < 2050
    assert closure.ends_at == until
    assert closure.reason == "avalancheControl"

    stretch = rider.locator(f'path.closure-line[data-closure-id="{closure.pk}"]')
    expect(stretch).to_have_count(1, timeout=5_000)  # noisy machine: 1 s is the target
    expect(rider.locator(f'path.trail-line[data-trail-id="{ridge.pk}"]')).to_have_attribute(
        "data-status", "Open"
    )
    expect(rider.locator(".trail-item .partly-closed")).to_contain_text(
        "Partly closed: Avalanche control"
    )
    stretch.click()
    expect(rider.locator(".closure-popup")).to_contain_text("Avalanche control")
    expect(rider.locator(".closure-popup")).to_contain_text("02:00 PM")

    page.locator(".closure-item .reopen").click()
    expect(page.locator(".closure-item")).to_have_count(0)
    expect(stretch).to_have_count(0, timeout=5_000)
