"""A closure's write until the rider's open map shows the stretch, on the production topology
(the Procfile under honcho, as bench_live runs it) with the demo system: the public map open in
a 390 x 844 Chromium page (a phone's viewport and touch, not throttled: the rider's phone on a
good connection), then WRITES closures, one after another, each of the middle third of another
trail, each sent as `POST /api/v1/trails/:id/closures`. The map learns of it through the live
stream's `closures` event and reads closures.geojson again. Each write is timed from just
before the request is sent until the page has drawn the closure's stretch: its
`path.closure-line` (the closed style) with a drawn outline, checked by the page itself at
every animation frame (page.wait_for_function), which notes the wall clock of the frame.

Needs Redis (REDIS_URL, default redis://127.0.0.1:6379/15) and Debian's chromium.
"""

import json
import os
import statistics
import time
import urllib.request
from contextlib import ExitStack

from bench.bench_live import BASE, PHONE, _chromium, _key, _set_up, demo_on_topology
from bench.common import percentile

WRITES = int(os.environ.get("BENCH_CLOSURES_MAP_WRITES", "10"))
TARGET_P95_SECONDS = 1.0

# Evaluated at every animation frame: the wall clock (ms) once the closure's stretch is drawn
# in the closed style; false until then. An SVG path Leaflet clipped away is "M0 0".
STRETCH_DRAWN = """
(id) => {
  const line = document.querySelector(`path.closure-line[data-closure-id="${id}"]`);
  const outline = line && line.getAttribute("d");
  return outline && outline !== "M0 0" ? Date.now() : false;
}
"""


def _create_closure(trail_id: str, key: str, length_meters: float) -> str:
    """The middle third of the trail, closed for avalanche control: the new closure's id."""
    request = urllib.request.Request(
        f"{BASE}/api/v1/trails/{trail_id}/closures",
        data=json.dumps(
            {
                "fromMeters": round(length_meters / 3, 1),
                "toMeters": round(length_meters * 2 / 3, 1),
                "reason": "avalancheControl",
            }
        ).encode(),
        method="POST",
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())["id"]


def _write_to_drawn(browser, system_id: str, key: str) -> dict:
    """Each closure's write (the request sent) until the open page has drawn its stretch."""
    from trails.models import Trail  # Django is set up by the runner

    trails = list(
        Trail.objects.filter(
            trail_system_id=system_id, hidden=False, type="Standard", distance__gt=0.3
        )
        .order_by("order")
        .values_list("id", "distance")[:WRITES]
    )
    context = browser.new_context(**PHONE)
    page = context.new_page()
    page.goto(f"{BASE}/map/{system_id}")
    page.wait_for_selector('#map-status[data-connection="live"]', timeout=30_000)
    page.wait_for_selector("body[data-closures]", state="attached", timeout=30_000)
    shown, answered_to_shown = [], []
    for trail_id, distance in trails:
        sent = time.time()
        closure_id = _create_closure(trail_id, key, distance * 1000)
        answered = time.time()
        drawn = page.wait_for_function(STRETCH_DRAWN, arg=closure_id, timeout=30_000)
        drawn_at = drawn.json_value() / 1000
        shown.append(drawn_at - sent)
        answered_to_shown.append(drawn_at - answered)
    context.close()
    return {
        "writes": len(shown),
        "measured": (
            "POST /api/v1/trails/:id/closures sent -> the open page's path.closure-line for "
            "it drawn (checked by the page at each animation frame, its wall clock)"
        ),
        "write -> stretch drawn, p50 (s)": round(statistics.median(shown), 3),
        f"write -> stretch drawn, p95 (s) (target <= {TARGET_P95_SECONDS})": (
            round(percentile(shown, 0.95), 3)
        ),
        "write -> stretch drawn, max (s)": round(max(shown), 3),
        "API answered -> stretch drawn, p50 (s)": round(statistics.median(answered_to_shown), 3),
    }


def run() -> dict[str, dict]:
    from playwright.sync_api import sync_playwright

    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"  # Playwright's loop in this thread
    with ExitStack() as stack:
        _, system = stack.enter_context(demo_on_topology("bench-closures-map"))
        key = _key()
        playwright = stack.enter_context(sync_playwright())
        browser = _chromium(playwright)
        figures = _write_to_drawn(browser, system.pk, key)
        browser.close()
    return {
        "Closures: write -> the rider's open map shows the stretch (the demo, 390 x 844)": {
            "set-up": _set_up(),
            **figures,
        }
    }
