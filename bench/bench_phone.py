"""The phone's first render of the demo map, five times cold, on the production topology
(the Procfile under honcho, as bench_live runs it): a 390 x 844 Chromium page throttled
through the DevTools protocol (1.6 Mbps down, 150 ms latency, 4x CPU slowdown), a new context
and no cache each time, the first run the first page the topology serves after its start.
Each run is timed from the navigation until the map's first 20 trail lines are drawn, and
the bytes moved until the page is idle are counted (as transferred, headers included; the
open stream not counted).

Needs Redis (REDIS_URL, default redis://127.0.0.1:6379/15) and Debian's chromium.
"""

import os
from contextlib import ExitStack

from bench.bench_live import (
    BASE,
    CPU_SLOWDOWN,
    THROTTLE,
    _chromium,
    demo_on_topology,
    throttled_phone_page,
)

RUNS = 5
TRAILS_DRAWN = 20
TARGETS = {"first render (s)": 2.5, "bytes": 150_000}

# Set before the page's scripts run: when the map holds TRAILS_DRAWN trail lines.
TRAILS_DRAWN_MARK = f"""
new MutationObserver(function (changes, observer) {{
  if (document.querySelectorAll("path.trail-line").length >= {TRAILS_DRAWN}) {{
    window.trailsDrawn = performance.now();
    observer.disconnect();
  }}
}}).observe(document, {{ childList: true, subtree: true }});
"""


def _cold_run(browser, url: str) -> tuple[float, int]:
    """Seconds from the navigation to TRAILS_DRAWN lines drawn; bytes moved until idle."""
    context, page, _, moved = throttled_phone_page(browser, TRAILS_DRAWN_MARK)
    page.goto(url, wait_until="load", timeout=120_000)
    page.wait_for_selector(
        f"path.trail-line >> nth={TRAILS_DRAWN - 1}", state="attached", timeout=120_000
    )
    page.wait_for_load_state("networkidle", timeout=120_000)
    drawn = page.evaluate("window.trailsDrawn") / 1000
    context.close()
    return drawn, sum(moved.values())


def run() -> dict[str, dict]:
    from playwright.sync_api import sync_playwright

    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"  # Playwright's loop in this thread
    with ExitStack() as stack:
        _, system = stack.enter_context(demo_on_topology("bench-phone"))
        playwright = stack.enter_context(sync_playwright())
        browser = _chromium(playwright)
        runs = [_cold_run(browser, f"{BASE}/map/{system.pk}") for _ in range(RUNS)]
        browser.close()
    times = [round(drawn, 2) for drawn, _ in runs]
    moved = [size for _, size in runs]
    return {
        "Phone first render of the demo map, five cold runs": {
            "profile": (
                f"390 x 844, {THROTTLE['downloadThroughput'] * 8 / 1e6:.1f} Mbps down, "
                f"{THROTTLE['latency']} ms latency, {CPU_SLOWDOWN}x CPU slowdown, cold cache; "
                f"load average {os.getloadavg()[0]:.1f} at the end"
            ),
            f"first {TRAILS_DRAWN} trail lines drawn, each run (s) "
            f"(target each <= {TARGETS['first render (s)']})": " / ".join(map(str, times)),
            "  slowest (s)": max(times),
            f"bytes moved until idle, each run (target each <= {TARGETS['bytes']:,})": (
                " / ".join(f"{size:,}" for size in moved)
            ),
        }
    }
