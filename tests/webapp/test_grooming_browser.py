"""The Grooming page in a real browser: the derived Timber Trail track against the demo."""

import pytest
from django.conf import settings
from playwright.sync_api import expect

from apikeys.models import User
from demo.loader import DEMO_TRUSTEE_UID, load_demo
from grooming.models import GroomingPass
from tests.webapp.test_browser import sign_in

pytestmark = pytest.mark.django_db(transaction=True)

TRACK = settings.BASE_DIR / "data" / "lost_trail_timber_trail_grooming.gpx"


def review_timber_trail_track(page, live_server, system, on_overview=None) -> None:
    """A trustee signs in and checks the Timber Trail track against the system; `on_overview`
    runs on the system's overview page on the way."""
    sign_in(page, live_server, User.objects.get(pk=DEMO_TRUSTEE_UID))
    page.goto(f"{live_server.url}/admin/trails/trailsystem/{system.pk}/overview/")
    expect(page.locator(".map-qr svg")).to_be_visible()
    if on_overview:
        on_overview()
    page.click("#grooming-link")
    page.set_input_files("#id_file", str(TRACK))
    page.select_option("#id_condition", "classicGroomed")
    page.click("#check-coverage")


def test_a_trustee_reviews_the_timber_trail_track_on_the_map_and_saves_it(
    live_server, page, screenshot
):
    system, _ = load_demo()
    problems = []
    # Script errors, and any file of the page (Leaflet, the map script) not served.
    page.on(
        "response",
        lambda r: problems.append(r.url) if r.status >= 400 and "favicon" not in r.url else None,
    )
    page.on("pageerror", lambda error: problems.append(str(error)))
    review_timber_trail_track(
        page, live_server, system, on_overview=lambda: screenshot("webapp-overview-demo", docs=True)
    )

    expect(page.locator("#coverage tbody tr").first).to_contain_text("Timber Trail")
    expect(page.locator("#grooming-map path.groomed-trail").first).to_be_visible()
    expect(page.locator("#grooming-map path.grooming-track")).to_have_count(1)
    assert page.locator("#grooming-map path.trail").count() > 10
    page.dispatch_event("#grooming-map path.groomed-trail", "mouseover")
    expect(page.locator(".leaflet-tooltip")).to_have_text("Timber Trail")
    screenshot("webapp-grooming-review", docs=True)
    assert not GroomingPass.objects.exists()

    page.click("#save-grooming")
    expect(page.locator(".messagelist")).to_contain_text("Grooming saved")
    grooming_pass = GroomingPass.objects.get()
    assert grooming_pass.condition == "classicGroomed"
    assert grooming_pass.uid == DEMO_TRUSTEE_UID
    expect(page.locator("#passes tbody tr")).to_have_count(1)
    expect(page.locator("#grooming-map path.grooming-track")).to_have_count(1)
    screenshot("webapp-grooming-saved")
    assert problems == []


def test_a_trail_name_holding_markup_is_text_in_the_grooming_map_tooltip(live_server, page):
    system, _ = load_demo()
    name = '<img src="/xss/grooming.png"><a href="https://evil.test/">Timber</a>'
    system.trails.filter(name="Timber Trail").update(name=name)
    requests = []
    page.on(
        "request", lambda r: requests.append(r.url) if "xss" in r.url or "evil" in r.url else None
    )
    review_timber_trail_track(page, live_server, system)

    page.dispatch_event("#grooming-map path.groomed-trail", "mouseover")

    expect(page.locator(".leaflet-tooltip")).to_have_text(name)
    assert page.locator('#grooming-map img, #grooming-map a[href*="evil"]').count() == 0
    assert requests == []
