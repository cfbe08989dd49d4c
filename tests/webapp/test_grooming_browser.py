"""The Grooming page in a real browser: the derived Timber Trail track against the demo."""

import json
from datetime import UTC, timedelta

import pytest
from django.conf import settings
from django.core.files.storage import default_storage
from django.utils import timezone
from django.utils.formats import date_format
from playwright.sync_api import expect

from apikeys.models import User
from demo.loader import DEMO_TRUSTEE_UID, load_demo
from grooming.models import GroomingPass
from tests.webapp.test_browser import sign_in
from trails.timezones import zone_of
from updates.models import Update

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
    expect(page.locator("#save-form")).to_be_attached()


@pytest.mark.parametrize("viewport", [(390, 844), (1280, 900)], ids=["phone", "desk"])
def test_the_sample_track_as_it_comes_is_recorded_as_groomed_now_and_published(
    viewport, live_server, page, screenshot
):
    """The repository's sample track dates from January: its grooming would have left the
    map long ago, so the check says so and offers to record it as groomed now."""
    system, _ = load_demo()
    page.set_viewport_size({"width": viewport[0], "height": viewport[1]})
    desk = viewport[0] > 500
    problems = []
    # Script errors, and any file of the page (Leaflet, the map script) not served.
    page.on(
        "response",
        lambda r: problems.append(r.url) if r.status >= 400 and "favicon" not in r.url else None,
    )
    page.on("pageerror", lambda error: problems.append(str(error)))
    overview = (lambda: screenshot("webapp-overview-demo", docs=True)) if desk else None
    review_timber_trail_track(page, live_server, system, on_overview=overview)

    expect(page.locator("#coverage tbody tr").first).to_contain_text("Timber Trail")
    expect(page.locator("#grooming-map path.groomed-trail").first).to_be_visible()
    expect(page.locator("#grooming-map path.grooming-track")).to_have_count(1)
    assert page.locator("#grooming-map path.trail").count() > 10
    page.dispatch_event("#grooming-map path.groomed-trail", "mouseover")
    expect(page.locator(".leaflet-tooltip")).to_have_text("Timber Trail")
    expect(page.locator("#expired-warning")).to_contain_text("nothing would be published")
    # Left the map on the 16th at 5:15 UTC: the evening before in the system's zone.
    expect(page.locator("#expired-warning")).to_contain_text("Jan. 15, 2026, 10:15 p.m.")
    expect(page.locator("#save-grooming")).to_have_count(0)
    screenshot(f"webapp-grooming-review-{'desk' if desk else 'phone'}", docs=True)
    assert not GroomingPass.objects.exists()

    page.click("#groomed-now")
    expect(page.locator(".messagelist")).to_contain_text(
        "Grooming saved: 1 trail groomed, shown on the map until"
    )
    grooming_pass = GroomingPass.objects.get()
    assert grooming_pass.condition == "classicGroomed"
    assert grooming_pass.uid == DEMO_TRUSTEE_UID
    assert timezone.now() - grooming_pass.groomed_at < timedelta(minutes=1)
    expect(page.locator("#passes tbody tr")).to_have_count(1)
    expect(page.locator("#passes tbody tr")).to_contain_text("Groomed for classic")
    expect(page.locator("#grooming-map path.grooming-track")).to_have_count(1)
    screenshot(f"webapp-grooming-saved-{'desk' if desk else 'phone'}")
    assert problems == []

    system.refresh_from_db()
    with default_storage.open(system.geo_json_path, "rb") as stored:
        features = json.loads(stored.read())["features"]
    published = [
        [c["value"] for entry in f["properties"]["updates"].get("surfaceConditions", [])
         for c in entry["conditions"]]
        for f in features
        if f["properties"].get("name") == "Timber Trail"
    ]  # fmt: skip
    assert ["classicGroomed"] in published


def test_saving_the_sample_track_with_its_own_old_time_is_refused_with_the_reason(
    live_server, page
):
    """A save posted with the track's own January time (a page opened earlier, say) is not
    kept: the reason is shown, with the review and its "record as groomed now"."""
    system, _ = load_demo()
    updates = Update.objects.count()
    review_timber_trail_track(page, live_server, system)
    page.eval_on_selector(
        "#save-form",
        "form => { const save = document.createElement('input'); save.type = 'hidden';"
        " save.name = 'save'; save.value = 'Save'; form.append(save); form.submit(); }",
    )
    expect(page.locator(".errornote")).to_contain_text("Not saved")
    expect(page.locator(".errornote")).to_contain_text("nothing would be published")
    expect(page.locator("#groomed-now")).to_be_visible()
    assert not GroomingPass.objects.exists()
    assert Update.objects.count() == updates


def test_a_groomed_at_within_a_day_is_saved_and_says_until_when_it_shows(live_server, page):
    system, _ = load_demo()
    sign_in(page, live_server, User.objects.get(pk=DEMO_TRUSTEE_UID))
    page.goto(f"{live_server.url}/admin/trails/trailsystem/{system.pk}/grooming/")
    page.set_input_files("#id_file", str(TRACK))
    groomed = timezone.localtime(timezone.now(), zone_of(system)) - timedelta(hours=2)
    page.fill("#id_groomed_at", groomed.strftime("%Y-%m-%dT%H:%M"))
    page.click("#check-coverage")
    until = date_format(groomed + timedelta(hours=24), "DATETIME_FORMAT")
    expect(page.locator("#shows-until")).to_contain_text(until)
    expect(page.locator("#expired-warning")).to_have_count(0)
    page.click("#save-grooming")
    expect(page.locator(".messagelist")).to_contain_text(f"shown on the map until {until}")
    assert GroomingPass.objects.get().groomed_at.hour == groomed.astimezone(UTC).hour


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
