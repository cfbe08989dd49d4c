"""The public map in a real browser (Debian's chromium through Playwright)."""

import re
import threading
from collections import Counter
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import orjson
import pytest
from django.core.files.storage import default_storage
from django.db import transaction
from django.utils import timezone
from playwright.sync_api import expect

from core.compiles import request_compile
from demo.loader import load_demo
from tests.browser import save_screenshot
from tests.factories import (
    PointFactory,
    TrailActivityFactory,
    TrailFactory,
    TrailSystemFactory,
    UpdateFactory,
)
from trails.models import TrailSystem
from updates import sms
from updates.models import Subscriber

pytestmark = pytest.mark.django_db(transaction=True)

# The status colours of public/static/public/map.js and public.css.
LINE_COLOURS = {"Open": "#1b7a34", "Caution": "#975400", "Closed": "#c0262d"}
CSS_COLOURS = {
    "Open": "rgb(27, 122, 52)",
    "Caution": "rgb(151, 84, 0)",
    "Closed": "rgb(192, 38, 45)",
}
# The second origin's page server (the embed test); within the ports this suite may use.
FRAMING_PORTS = range(18700, 18710)
STRICT_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'"
)


@pytest.fixture
def live(live_server, settings):
    """The live server as the public base of every link, polling every second."""
    settings.PUBLIC_BASE_URL = live_server.url
    settings.MAP_POLL_SECONDS = 1
    return live_server


def published_file(system: TrailSystem) -> dict:
    system.refresh_from_db()
    with default_storage.open(system.geo_json_path, "rb") as stored:
        return orjson.loads(stored.read())


def small_system() -> TrailSystem:
    system = TrailSystemFactory(name="Pine Hill Nordic")
    trail = TrailFactory(trail_system=system, name="Meadow Loop", status="Open")
    TrailActivityFactory(trail=trail, value="nordic-classic", status="Open")
    TrailFactory(trail_system=system, name="Ridge Run", status="Caution", order=1)
    TrailFactory(trail_system=system, name="Secret Path", status="Open", hidden=True, order=2)
    PointFactory(trail_system=system, name="Main lodge", marker_class="lodge")
    PointFactory(trail_system=system, name="Hidden shed", marker_class="cabin", hidden=True)
    with transaction.atomic():
        request_compile(system, reason="test")
    return system


def drawn_trails(page) -> list[dict]:
    return page.eval_on_selector_all(
        "path.trail-line",
        """paths => paths.map(p => ({
            id: p.getAttribute('data-trail-id'), status: p.getAttribute('data-status'),
            stroke: p.getAttribute('stroke')}))""",
    )


def test_the_demo_map_draws_every_visible_trail_and_point_in_its_status_colour(
    live, page, screenshot
):
    system, _ = load_demo()
    with transaction.atomic():  # the nordic trails were groomed three hours ago
        groomed = timezone.now() - timedelta(hours=3, minutes=5)
        system.updates.filter(type="surfaceConditions").update(updated_on=groomed)
        request_compile(system, reason="test")
    features = published_file(system)["features"]
    visible_lines = [f["properties"] for f in features if "trailId" in f["properties"]]
    visible_lines = [p for p in visible_lines if not p["hidden"]]
    visible_points = [f["properties"] for f in features if "pointId" in f["properties"]]
    visible_points = [p for p in visible_points if not p["hidden"]]
    problems = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    # Served under a strict Content-Security-Policy: the page needs no inline script or style.
    page.route(
        f"{live.url}/map/*",
        lambda route: route.fulfill(
            response=(fetched := route.fetch()),
            headers={**fetched.headers, "content-security-policy": STRICT_CSP},
        ),
    )

    page.goto(f"{live.url}/map/{system.pk}")
    expect(page.locator("path.trail-line")).to_have_count(len(visible_lines))
    expect(page.locator("[data-point-id]")).to_have_count(len(visible_points))

    drawn = drawn_trails(page)
    assert Counter((d["id"], d["status"]) for d in drawn) == Counter(
        (p["trailId"], p["status"]) for p in visible_lines
    )
    assert all(d["stroke"] == LINE_COLOURS[d["status"]] for d in drawn)
    points = page.eval_on_selector_all(
        "[data-point-id]",
        """icons => icons.map(i => ({id: i.getAttribute('data-point-id'),
            status: i.getAttribute('data-status'),
            border: getComputedStyle(i).borderTopColor}))""",
    )
    assert sorted((p["id"], p["status"]) for p in points) == sorted(
        (p["pointId"], p["status"]) for p in visible_points
    )
    assert all(p["border"] == CSS_COLOURS[p["status"]] for p in points)
    # Status in words beside the colours; the notice, and the snow report in inches.
    expect(page.locator("#legend")).to_contain_text("Caution")
    expect(page.locator("#notices")).to_contain_text("Welcome to the demo")
    expect(page.locator("#snow")).to_contain_text("48 in")
    expect(page.locator(".group-closed .group-heading")).to_contain_text("Closed")
    expect(page.locator(".conditions").first).to_contain_text("Groomed for classic")
    expect(page.locator(".conditions").first).to_contain_text("3 h ago")
    screenshot("map-desktop", docs=True)
    # Keyboard: the first Tab offers the way past the map; a trail in the list opens its
    # popup on the map, and Escape closes it.
    page.keyboard.press("Tab")
    expect(page.locator(".skip-link")).to_be_focused()
    page.locator(".trail-button").first.focus()
    page.keyboard.press("Enter")
    expect(page.locator(".leaflet-popup")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.locator(".leaflet-popup")).to_have_count(0)

    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_timeout(300)
    screenshot("map-phone", docs=True)
    assert problems == []


def test_a_status_change_made_through_the_api_appears_after_the_poll(
    live, page, client_for, screenshot
):
    system = small_system()
    trail = system.trails.get(name="Meadow Loop")
    page.goto(f"{live.url}/map/{system.pk}")
    line = page.locator(f'path.trail-line[data-trail-id="{trail.pk}"]')
    expect(line).to_have_attribute("data-status", "Open")
    first_file = page.locator("body").get_attribute("data-file")

    response = client_for(system.owner).patch(
        f"/api/v1/trails/{trail.pk}", {"status": "Closed"}, format="json"
    )
    assert response.status_code == 200

    expect(line).to_have_attribute("data-status", "Closed", timeout=10_000)
    assert line.get_attribute("stroke") == LINE_COLOURS["Closed"]
    assert page.locator("body").get_attribute("data-file") != first_file
    expect(page.locator(".group-closed")).to_contain_text("Meadow Loop")
    screenshot("map-after-status-change")


def test_a_french_system_speaks_french_in_its_units_with_its_weather(live, page, screenshot):
    system = TrailSystemFactory(
        name="Sentiers du Lac",
        language="fr",
        depth_measurement="centimeters",
        temp_measurement="celsius",
        length_measurement="kilometers",
        weather={
            "observedAt": timezone.now().isoformat(),
            "temperature": -6.4,
            "apparentTemperature": -11.2,
            "windSpeed": 18.0,
            "description": "Neige légère",
        },
    )
    TrailFactory(trail_system=system, name="Boucle du Lac", status="Closed")
    UpdateFactory(trail_system=system, type="snowReport", description="", base_depth=85)
    UpdateFactory(
        trail_system=system, severity="warning", description="Glace sur le sentier du Lac."
    )
    with transaction.atomic():
        request_compile(system, reason="test")

    page.goto(f"{live.url}/map/{system.pk}")

    expect(page.locator("html")).to_have_attribute("lang", "fr")
    expect(page.locator(".group-closed .group-heading")).to_contain_text("Fermé")
    expect(page.locator("#snow")).to_contain_text("85 cm")
    expect(page.locator("#weather")).to_contain_text("-6 °C")
    expect(page.locator("#weather")).to_contain_text("vent 18 km/h")
    expect(page.locator("#notices")).to_contain_text("Avertissement : Glace sur le sentier")
    expect(page.locator("#legend")).to_contain_text("Prudence")
    screenshot("map-french")


class FramingPage(BaseHTTPRequestHandler):
    """A club's page on another origin that frames the map and the status list."""

    body = b""

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *args):
        pass


@pytest.fixture
def other_origin():
    """Serves FramingPage on the first free port of FRAMING_PORTS."""
    for port in FRAMING_PORTS:
        try:
            server = ThreadingHTTPServer(("127.0.0.1", port), FramingPage)
            break
        except OSError:
            continue
    else:
        pytest.fail(f"no free port in {FRAMING_PORTS}")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


def test_the_embeds_load_inside_frames_of_a_page_on_another_origin(
    live, page, other_origin, screenshot
):
    system = small_system()
    FramingPage.body = (
        f"<!doctype html><title>Club</title><h1>Pine Hill Ski Club</h1>"
        f'<iframe id="map" src="{live.url}/embed/{system.pk}" width="700" height="400"></iframe>'
        f'<iframe id="list" src="{live.url}/embed/{system.pk}/list" width="500" height="200">'
        f"</iframe>"
    ).encode()

    page.goto(other_origin)

    embedded_map = page.frame_locator("#map")
    expect(embedded_map.locator("path.trail-line")).to_have_count(2)
    expect(embedded_map.locator(".full-map-link")).to_be_visible()
    expect(page.frame_locator("#list").locator(".trail-row")).to_have_count(2)
    expect(page.frame_locator("#list").locator("body")).to_contain_text("Caution")
    screenshot("embed-on-another-origin", docs=True)


def test_subscribing_from_the_map_completes_by_email_link_and_sms_code(
    live, page, settings, tmp_path, screenshot
):
    settings.EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    settings.EMAIL_FILE_PATH = str(tmp_path / "mail")
    settings.SMS_BACKEND = "updates.sms.locmem.SmsBackend"
    sms.outbox.clear()
    system = small_system()
    page.goto(f"{live.url}/map/{system.pk}")

    page.locator("#subscribe").get_by_label("E-mail").fill("rider@example.test")
    page.get_by_label("Mobile phone").fill("+1 406 555 0123")
    page.get_by_role("button", name="Subscribe").click()

    expect(page.locator("h1")).to_have_text("Check your messages")
    assert not Subscriber.objects.exists()
    screenshot("subscribe-check-messages", docs=True)
    code = re.search(r"\b(\d{6})\b", sms.outbox[-1].body).group(1)
    page.get_by_label("Code").fill(code)
    page.get_by_role("button", name="Confirm").click()
    expect(page.locator("h1")).to_have_text("You are subscribed")
    assert Subscriber.objects.get().phone == "+14065550123"

    (message,) = Path(settings.EMAIL_FILE_PATH).iterdir()
    link = re.search(r"http://\S+/subscribe/confirm/\S+", message.read_text()).group(0)
    page.goto(link)
    page.get_by_role("button", name="Confirm my subscription").click()
    expect(page.locator("h1")).to_have_text("You are subscribed")
    screenshot("subscribe-confirmed")
    subscriber = Subscriber.objects.get()
    assert (subscriber.email, subscriber.phone) == ("rider@example.test", "+14065550123")
    sms.outbox.clear()


def test_a_trail_tapped_in_the_list_on_a_phone_shows_its_popup_clear_of_the_controls(live, browser):
    """390 x 844, the list below the map: a tapped trail brings the map back into view with its
    popup, whose name and Follow are not under the zoom buttons, "Live" or the view switch,
    and whose close button is a thumb's size."""
    system, _ = load_demo()
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, locale="en-US"
    )
    page = context.new_page()
    page.goto(f"{live.url}/map/{system.pk}")
    button = page.locator(".trail-button", has_text="Windy Passage")
    button.scroll_into_view_if_needed()
    expect(page.locator("#map")).not_to_be_in_viewport(ratio=0.9)
    button.tap()

    popup = page.locator(".leaflet-popup")
    expect(popup.locator(".popup-title")).to_have_text("Windy Passage")
    expect(popup.locator(".follow-button")).to_be_visible()
    expect(page.locator("#map")).to_be_in_viewport(ratio=0.9)
    page.wait_for_timeout(600)  # the pan that brings the grown popup clear
    for part in (popup.locator(".popup-title"), popup.locator(".follow-button")):
        box = part.bounding_box()
        centre = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        on_top = page.evaluate(
            "([x, y]) => !!document.elementFromPoint(x, y).closest('.leaflet-popup')", centre
        )
        assert on_top, f"{part} is covered at {centre}"
    close = popup.locator(".leaflet-popup-close-button").bounding_box()
    assert close["width"] >= 44 and close["height"] >= 44
    save_screenshot(page, "map-phone-trail-popup")
