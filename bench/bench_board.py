"""The status board on the production topology (bench_live's: honcho running the Procfile),
for the demo and for a system of BIG_TRAILS trails, each trail with two activities:

- First load at 390 x 844 over a slow-4G profile set through the Chromium DevTools protocol
  (1.6 Mbps down, 150 ms latency, cold cache): until the first paint of the page with the
  trails' names and statuses (they are in the HTML), and until the page's `load`.
- Tap to server confirmation: TAPS taps, one after another, each timed in the page from the
  click to the row marked saved (the server's JSON answer applied), unthrottled; p50 / p95.

Needs Redis (REDIS_URL, default redis://127.0.0.1:6379/15) and Debian's chromium.
"""

import os
import tempfile
import urllib.request
from importlib import import_module
from pathlib import Path

from bench.bench_live import BASE, PHONE, THROTTLE, Topology, _chromium
from bench.common import percentile, real_broker

BIG_TRAILS = 5_000
TAPS = 40
TARGETS = {"first load (s)": 2.5, "tap p95 (ms)": 300}
CATEGORIES = [f"Area {n}" for n in range(1, 21)]

# Clicks the button and resolves with the milliseconds until its row is marked saved.
TIMED_TAP = """
([trailId, value]) => new Promise((resolve) => {
  const row = document.getElementById("trail-" + trailId);
  const start = performance.now();
  new MutationObserver((changes, observer) => {
    if (row.getAttribute("data-sync") === "saved") {
      observer.disconnect();
      resolve(performance.now() - start);
    }
  }).observe(row, { attributes: true, attributeFilter: ["data-sync"] });
  row.setAttribute("data-sync", "");
  row.querySelector('button[value="' + value + '"]').click();
})
"""


def _big_system(member) -> str:
    """BIG_TRAILS trails in 20 areas, two activities each, the member a Trustee of it."""
    from django.db import connection

    from trails.models import Membership, Trail, TrailActivity, TrailSystem

    system = TrailSystem.objects.create(name="Bench Board", lat=45.69, lng=-113.95)
    trails = []
    for i in range(BIG_TRAILS):
        trail = Trail(
            trail_system=system,
            name=f"Trail {i}",
            status=("Open", "Caution", "Closed")[i % 3],
            order=i,
            categories=[CATEGORIES[i % len(CATEGORIES)]],
            elevations=[1500.0] * 50,
        )
        coordinates = [
            [-113.95 + i * 0.0001, 45.69, 1500.0],
            [-113.949 + i * 0.0001, 45.691, 1501.0],
        ]
        trail.apply_geometry({"type": "LineString", "coordinates": coordinates})
        trails.append(trail)
    Trail.objects.bulk_create(trails)
    TrailActivity.objects.bulk_create(
        TrailActivity(trail=trail, value=value, status="Open", position=position)
        for trail in trails
        for position, value in enumerate(("nordic-classic", "snowshoeing"))
    )
    Membership.objects.create(trail_system=system, user=member, role="Trustee")
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return system.pk


def _tapped(system_id: str, where: dict) -> list[tuple[str, str]]:
    """The first TAPS trails (not lifts) of the system, with their statuses."""
    from trails.models import Trail

    trails = Trail.objects.filter(trail_system_id=system_id, **where).exclude(type="Lift")
    return list(trails.order_by("order").values_list("id", "status")[:TAPS])


def _session_cookie(user) -> dict:
    """A signed-in session of the web app for `user`, as its sign-in would leave it."""
    from django.conf import settings

    store = import_module(settings.SESSION_ENGINE).SessionStore()
    store["_auth_user_id"] = str(user.pk)
    store["_auth_user_backend"] = "webapp.backends.RoleBackend"
    store["_auth_user_hash"] = user.get_session_auth_hash()
    store.create()
    return {"name": settings.SESSION_COOKIE_NAME, "value": store.session_key, "url": BASE}


def _warm(url: str, cookie: dict) -> None:
    """A few requests first, as a running server has served before: the figure is the
    phone's cold cache on a slow network, not a gunicorn worker's first request."""
    request = urllib.request.Request(url, headers={"Cookie": f"{cookie['name']}={cookie['value']}"})
    for _ in range(4):
        with urllib.request.urlopen(request, timeout=60) as response:
            response.read()


def _first_load(browser, url: str, cookie: dict) -> dict:
    _warm(url, cookie)
    context = browser.new_context(**PHONE)
    context.add_cookies([cookie])
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    cdp.send("Network.emulateNetworkConditions", THROTTLE)
    moved: dict[str, int] = {}
    cdp.on(
        "Network.loadingFinished",
        lambda e: moved.update({e["requestId"]: int(e["encodedDataLength"])}),
    )
    page.goto(url, wait_until="load", timeout=300_000)
    timings = page.evaluate(
        """() => ({
          paint: performance.getEntriesByName("first-contentful-paint")[0].startTime,
          load: performance.getEntriesByType("navigation")[0].loadEventEnd,
          rows: document.querySelectorAll(".board-trail").length,
        })"""
    )
    context.close()
    return {
        "trails on the page": timings["rows"],
        f"first paint, names and statuses shown (s) (target <= {TARGETS['first load (s)']})": (
            round(timings["paint"] / 1000, 2)
        ),
        "page load event (s)": round(timings["load"] / 1000, 2),
        "bytes moved": sum(moved.values()),
    }


def _taps(browser, url: str, trails: list[tuple[str, str]], cookie: dict) -> dict:
    context = browser.new_context(**PHONE)
    context.add_cookies([cookie])
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(message.text))
    page.goto(url, timeout=120_000)
    try:
        page.wait_for_selector('#board-sync[data-state="saved"]', timeout=60_000)
    except Exception:
        raise RuntimeError(f"the board did not start at {page.url}: {errors}") from None
    timings = []
    for trail_id, status in trails:
        new_status = "Caution" if status != "Caution" else "Open"
        timings.append(page.evaluate(TIMED_TAP, [trail_id, f"{trail_id}||{new_status}"]))
    context.close()
    return {
        "taps": len(timings),
        "tap to server confirmation, p50 (ms)": round(percentile(timings, 0.5)),
        f"tap to server confirmation, p95 (ms) (target <= {TARGETS['tap p95 (ms)']})": round(
            percentile(timings, 0.95)
        ),
    }


def run() -> dict[str, dict]:
    from playwright.sync_api import sync_playwright

    from apikeys.models import User
    from demo.loader import DEMO_TRUSTEE_UID, load_demo

    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"  # Playwright's loop in this thread
    results = {}
    with (
        real_broker("bench-board") as queue,
        tempfile.TemporaryDirectory(prefix="bench-board-") as folder,
    ):
        topology = Topology(queue, Path(folder))
        try:
            demo, _ = load_demo()
            trustee = User.objects.get(pk=DEMO_TRUSTEE_UID)
            big = _big_system(trustee)
            topology.wait_until_up(demo.pk)
            cookie = _session_cookie(trustee)
            profile = (
                f"390 x 844, {THROTTLE['downloadThroughput'] * 8 / 1e6:.1f} Mbps down, "
                f"{THROTTLE['latency']} ms latency, cold cache; the taps unthrottled; "
                f"honcho running the Procfile, {os.cpu_count()} CPUs, load average "
                f"{os.getloadavg()[0]:.1f} at the start"
            )
            with sync_playwright() as playwright:
                browser = _chromium(playwright)
                demo_url = f"{BASE}/admin/trail-systems/{demo.pk}/board/"
                results["Status board: the demo"] = {
                    "profile": profile,
                    **_first_load(browser, demo_url, cookie),
                    **_taps(browser, demo_url, _tapped(demo.pk, {}), cookie),
                }
                big_url = f"{BASE}/admin/trail-systems/{big}/board/"
                area_url = f"{big_url}?group=c%3AArea%201"
                area = _first_load(browser, area_url, cookie)
                results[f"Status board: {BIG_TRAILS:,} trails"] = {
                    "profile": profile,
                    "first page: the list of its 20 groups": "",
                    **_first_load(browser, big_url, cookie),
                    f"one group's page ({area.pop('trails on the page')} trails)": "",
                    **{f"  {name}": value for name, value in area.items()},
                    **_taps(browser, area_url, _tapped(big, {"categories": ["Area 1"]}), cookie),
                }
                browser.close()
        finally:
            topology.stop()
    return results
