"""Following a trail on a phone (Chromium at 390 x 844): the page registers the service worker and
shows the rule, and a snow depth is set in the Alerts panel; the owner closes the trail on the
board; the push request reaches a local push service stand-in within 2 s, signed (VAPID) and
encrypted as a push service and the browser check it; delivered to the service worker through
the DevTools protocol, it shows a notification whose tap opens the map at the trail.

Headless Chromium cannot reach a real push service, so the page gets a subscription to the
stand-in at the browser's pushManager boundary, as outside services are faked at theirs. The
background pass `make run` runs every second (send_alerts) runs here in a thread."""

import json
import threading
import time

import pytest
import requests
from django.db import connection, transaction
from playwright.sync_api import expect

from alerts.tasks import run_all_due
from core.compiles import request_compile
from tests.alerts.push_service import Subscription, accepting, verified_claims
from tests.browser import save_screenshot
from tests.factories import TrailFactory, TrailSystemFactory
from tests.fake_http import FakeServer
from tests.webapp.test_board_browser import tap
from tests.webapp.test_browser import sign_in

pytestmark = pytest.mark.django_db(transaction=True)

# PushManager as the page sees it, answering with the stand-in's subscription.
FAKE_PUSH_MANAGER = """
(() => {
  const subscription = %s;
  let current = null;
  const wrap = () => ({
    endpoint: subscription.endpoint,
    toJSON: () => subscription,
    unsubscribe: () => { current = null; return Promise.resolve(true); },
  });
  PushManager.prototype.subscribe = function () {
    current = wrap();
    return Promise.resolve(current);
  };
  PushManager.prototype.getSubscription = function () { return Promise.resolve(current); };
})();
"""


@pytest.fixture
def sending():
    """`send_alerts` every 0.2 s, beside the live server, as `make run` runs it each second."""
    stop = threading.Event()

    def loop():
        while not stop.is_set():
            run_all_due()
            stop.wait(0.2)
        connection.close()

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    yield
    stop.set()
    thread.join(5)


@pytest.mark.serial  # measures time
def test_follow_a_trail_and_get_its_closure_on_the_lock_screen(
    live_server, browser, client_for, settings, sending
):
    settings.PUBLIC_BASE_URL = live_server.url
    system = TrailSystemFactory(name="Pine Hill Nordic")
    trail = TrailFactory(trail_system=system, name="Ridge Run", status="Open", order=1)
    TrailFactory(trail_system=system, name="Meadow Loop", status="Open", order=2)
    with transaction.atomic():
        request_compile(system, reason="test")

    with FakeServer(accepting()) as push_service:
        subscription = Subscription.to(push_service)
        context = browser.new_context(
            viewport={"width": 390, "height": 844}, locale="en-US", has_touch=True
        )
        context.grant_permissions(["notifications"], origin=live_server.url)
        context.add_init_script(FAKE_PUSH_MANAGER % json.dumps(subscription.json()))
        page = context.new_page()
        page.goto(f"{live_server.url}/map/{system.pk}?trail={trail.pk}")
        follow = page.locator(f'.follow-button[data-trail-id="{trail.pk}"]')
        follow.click()

        expect(follow).to_have_attribute("aria-pressed", "true")
        panel = page.locator("#alerts-panel")
        expect(panel.locator(".alerts-rule")).to_contain_text("Ridge Run")
        checked = panel.locator(".alerts-rule input:checked")
        assert sorted(checked.evaluate_all("boxes => boxes.map(b => b.value)")) == [
            "closes",
            "opens",
        ]
        registered = page.evaluate(
            "navigator.serviceWorker.getRegistration('/').then(r => r && r.scope)"
        )
        assert registered == f"{live_server.url}/"
        save_screenshot(page, "alerts-following", docs=True, full_page=False)

        # Snow too, at least 6 inches (the system reports in inches; rules keep cm).
        manage_url = page.evaluate(
            f"JSON.parse(localStorage.getItem('trail-alerts:{system.pk}')).manageUrl"
        )
        panel.locator('.alerts-rule input[value="snow"]').check()
        panel.locator(".alerts-snow-depth").fill("6")
        panel.locator(".alerts-snow-depth").press("Tab")
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            answer = requests.get(manage_url, headers={"Accept": "application/json"}, timeout=5)
            (rule,) = answer.json()["rules"]
            if rule["snowCm"] is not None:
                break
            time.sleep(0.1)
        assert (sorted(rule["on"]), rule["snowCm"]) == (["closes", "opens", "snow"], 6 * 2.54)
        expect(panel.locator(".alerts-snow-depth")).to_have_value("6")

        # The owner closes the trail on the board, at a desk.
        owner = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-US")
        board = owner.new_page()
        sign_in(board, live_server, system.owner)
        board.goto(f"{live_server.url}/admin/trail-systems/{system.pk}/board/")
        expect(board.locator("#board-sync")).to_have_text("Every change is saved.")
        tap(board, trail, "Closed")
        tapped = time.monotonic()
        while not push_service.requests and time.monotonic() - tapped < 10:
            time.sleep(0.02)
        assert push_service.requests, "no push request came"
        assert time.monotonic() - tapped < 2.0
        expect(board.locator("#board-sync")).to_have_text("Every change is saved.")
        owner.close()
        (request,) = push_service.requests
        public_key = client_for(system.owner).get("/alerts/vapid-public-key").json()["publicKey"]
        verified_claims(request, public_key)
        message = subscription.decrypt(request)
        assert (message["event"]["trailId"], message["event"]["status"]) == (trail.pk, "Closed")

        # The push as the browser would get it: through the DevTools protocol.
        cdp = context.new_cdp_session(page)
        registrations = []
        cdp.on(
            "ServiceWorker.workerRegistrationUpdated",
            lambda e: registrations.extend(e["registrations"]),
        )
        cdp.send("ServiceWorker.enable")
        deadline = time.monotonic() + 5
        while not registrations and time.monotonic() < deadline:
            page.wait_for_timeout(50)
        registration = next(r for r in registrations if r["scopeURL"] == f"{live_server.url}/")
        page.goto(f"{live_server.url}/map/{system.pk}")  # the rider has moved on
        cdp.send(
            "ServiceWorker.deliverPushMessage",
            {
                "origin": live_server.url,
                "registrationId": registration["registrationId"],
                "data": json.dumps(message),
            },
        )
        shown = []
        deadline = time.monotonic() + 5
        while not shown and time.monotonic() < deadline:
            page.wait_for_timeout(100)
            shown = page.evaluate(
                "navigator.serviceWorker.ready.then(r => r.getNotifications())"
                ".then(ns => ns.map(n => ({title: n.title, body: n.body, tag: n.tag})))"
            )
        assert shown == [
            {"title": "Ridge Run: Closed", "body": "Pine Hill Nordic", "tag": f"trail-{trail.pk}"}
        ]

        worker = context.service_workers[0]
        worker.evaluate(
            "self.registration.getNotifications().then(ns => self.openNotification(ns[0]))"
        )
        page.wait_for_url(f"{live_server.url}/map/{system.pk}?trail={trail.pk}")
        popup = page.locator(".leaflet-popup")
        expect(popup).to_contain_text("Ridge Run")
        expect(popup).to_contain_text("Closed")
        save_screenshot(page, "alerts-opened-from-notification", full_page=False)
        context.close()
