"""The live map on the production topology, as the Procfile runs it under honcho: gunicorn
(pages, API, legacy, published files from local storage), the streams' ASGI server (uvicorn,
config.asgi), a Celery worker and beat, PostgreSQL and Redis.

- A write through the API until the change shows in an open Chromium page of the demo map:
  p50 / p95 over WRITES writes, one after another.
- Streams held: STREAMS Server-Sent Events streams opened by a client process and kept open,
  each told of a compile; legacy requests per second (wrk, bench_legacy's helpers, its
  500-trail system) without the streams and with them held.
- The demo map's first render (its trails drawn) and the bytes it moved, on a phone profile
  throttled through the Chromium DevTools protocol (1.6 Mbps down, 150 ms latency, 4x CPU
  slowdown). Published files are sent as stored: compressed ones lower the figure.

Needs Redis (REDIS_URL, default redis://127.0.0.1:6379/15) and Debian's chromium.
"""

import asyncio
import json
import multiprocessing
import os
import random
import statistics
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from apikeys.models import User
from bench.bench_legacy import _requests_per_second, _seed, _wrk_binary
from bench.common import ROOT, cpu_seconds, percentile, real_broker
from tests.browser import CHROMIUM, CHROMIUM_ARGS
from tests.factories import create_api_key

HOST = "127.0.0.1"
PORT = int(os.environ.get("BENCH_LIVE_PORT", "8160"))
STREAM_PORT = PORT + 1
BASE = f"http://{HOST}:{PORT}"
STREAM_BASE = f"http://{HOST}:{STREAM_PORT}"
WRITES = 50
STREAMS = int(os.environ.get("BENCH_LIVE_STREAMS", "2000"))
STREAMS_OPENED_PER_SECOND = 200
LEGACY_ROUNDS = 3
IDLE_SECONDS = 20  # at least one heartbeat of every stream
TARGETS = {"visible p95 (s)": 1.0, "streams": 2000, "first render (s)": 2.5, "bytes": 150_000}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
THROTTLE = {
    "offline": False,
    "latency": 150,
    "downloadThroughput": 1_600_000 / 8,
    "uploadThroughput": 750_000 / 8,
}
CPU_SLOWDOWN = 4
STATUSES = ("Closed", "Caution", "Open")
_FORK = multiprocessing.get_context("fork")


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.read()


def _send(method: str, path: str, key: str, body: dict) -> None:
    request = urllib.request.Request(
        f"{BASE}{path}",
        data=json.dumps(body).encode(),
        method=method,
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        response.read()


class Topology:
    """`honcho start -f Procfile` with a private queue, media folder and ports (web on `port`,
    streams on the next), and `environment` over the production settings."""

    def __init__(self, queue: str, folder: Path, port: int = PORT, environment: dict | None = None):
        self.folder = folder
        self.base = f"http://{HOST}:{port}"
        self.stream_base = f"http://{HOST}:{port + 1}"
        empty_env_file = folder / "empty.env"  # not the developer's .env
        empty_env_file.write_text("")
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "SECRET_KEY": os.environ.get("SECRET_KEY", "bench-only-secret-key"),
            "DEBUG": "0",
            "LOG_LEVEL": "WARNING",
            "REDIS_URL": os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/15",
            "CELERY_QUEUE": queue,
            "MEDIA_ROOT": str(folder / "media"),
            "VAR_DIR": str(folder),
            "HOST": HOST,
            "STREAM_PORT": str(port + 1),
            "STREAM_BASE_URL": self.stream_base,
            "PUBLIC_BASE_URL": self.base,
            **(environment or {}),
        }
        self.log = open(folder / "topology.log", "ab")  # noqa: SIM115 - closed in stop()
        self.process = subprocess.Popen(
            [str(ROOT / ".venv/bin/honcho"), "start", "-f", "Procfile", "-p", str(port),
             "-e", str(empty_env_file), "--no-colour"],
            cwd=ROOT, env=env, stdout=self.log, stderr=self.log,
        )  # fmt: skip

    def wait_until_up(self, system_id: str) -> None:
        for _ in range(600):
            if self.process.poll() is not None:
                raise RuntimeError(f"the topology exited; see {self.folder / 'topology.log'}")
            try:
                _get(f"{self.base}/legacy/ts/{system_id}")
                _get(f"{self.stream_base}/healthz")
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("the topology did not answer")

    def pid_of(self, program: str) -> int:
        """The process under honcho whose command line names `program`: the program itself,
        not the shell honcho runs its line through (honcho -> /bin/sh -c -> program)."""
        processes: dict[int, tuple[int, bytes]] = {}
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
                processes[int(stat.parent.name)] = (parent, (stat.parent / "cmdline").read_bytes())
            except OSError:
                continue

        def named_child(of: set[int]) -> int | None:
            return min(
                (pid for pid, (parent, command) in processes.items()
                 if parent in of and program.encode() in command),
                default=None,
            )  # fmt: skip

        parents = {self.process.pid}
        for _ in range(3):
            found = named_child(parents)
            if found is not None:
                shell = processes[found][1].split(b"\0", 1)[0].endswith(b"sh")
                return (named_child({found}) if shell else None) or found
            parents = {pid for pid, (parent, _) in processes.items() if parent in parents}
        raise RuntimeError(f"no {program} process in the topology")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        self.log.close()


def client_address(index: int, per_address: int = 20) -> str:
    """A loopback address of its own for every `per_address` streams (riders behind one
    address): the stream process holds at most STREAM_MAX_PER_CLIENT (20) of one address."""
    group = index // per_address
    return f"127.1.{group // 250}.{group % 250 + 1}"


class StreamClients(_FORK.Process):
    """Opens `count` streams of a system at a steady pace, 20 from each address, and holds
    them; counts the streams that received a `published` event."""

    def __init__(self, system_id: str, count: int):
        super().__init__(daemon=True)
        self.path = f"/map/{system_id}/events"
        self.count = count
        self.opened = _FORK.Value("i", 0)
        self.failed = _FORK.Value("i", 0)
        self.told = _FORK.Value("i", 0)
        self.stop = _FORK.Event()

    def run(self) -> None:
        asyncio.run(self._hold())

    async def _one(self, index: int) -> None:
        try:
            reader, writer = await asyncio.open_connection(
                HOST, STREAM_PORT, local_addr=(client_address(index), 0)
            )
            writer.write(f"GET {self.path} HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode())
            head = await reader.readuntil(b"\r\n\r\n")
            if b" 200 " not in head.split(b"\r\n", 1)[0]:
                raise OSError(head[:80])
        except OSError:
            with self.failed.get_lock():
                self.failed.value += 1
            return
        with self.opened.get_lock():
            self.opened.value += 1
        told = False
        while chunk := await reader.read(65536):
            if not told and b"event: published" in chunk:
                told = True
                with self.told.get_lock():
                    self.told.value += 1

    async def _hold(self) -> None:
        tasks = []
        for index in range(self.count):
            tasks.append(asyncio.create_task(self._one(index)))
            await asyncio.sleep(1 / STREAMS_OPENED_PER_SECOND)
        while not self.stop.is_set():
            await asyncio.sleep(0.2)
        for task in tasks:
            task.cancel()


def legacy_rate(
    topology: Topology, legacy_id: str, *, warm_up: bool = False
) -> tuple[float, float]:
    """Median legacy /ts requests per second and the topology's CPU ms per request over
    LEGACY_ROUNDS rounds (after a round of warm-up when asked)."""
    wrk, pid, url = _wrk_binary(), topology.process.pid, f"{BASE}/legacy/ts/{legacy_id}"
    if warm_up:
        _requests_per_second(wrk, pid, url)
    rounds = [_requests_per_second(wrk, pid, url) for _ in range(LEGACY_ROUNDS)]
    return statistics.median(r[0] for r in rounds), statistics.median(r[1] for r in rounds)


def _streams_and_legacy(topology: Topology, system_id: str, legacy_id: str, key: str) -> dict:
    without, cpu_without = legacy_rate(topology, legacy_id, warm_up=True)
    clients = StreamClients(system_id, STREAMS)
    clients.start()
    started = time.monotonic()
    try:
        while clients.opened.value + clients.failed.value < STREAMS:
            if time.monotonic() - started > 120:
                break
            time.sleep(0.2)
        opening = time.monotonic() - started
        held, failed = clients.opened.value, clients.failed.value
        time.sleep(2)
        stream_pid = topology.pid_of("uvicorn")
        idle_from, idle_cpu = time.monotonic(), cpu_seconds([stream_pid])
        time.sleep(IDLE_SECONDS)
        idle = (cpu_seconds([stream_pid]) - idle_cpu) / (time.monotonic() - idle_from)
        with_streams, cpu_with = legacy_rate(topology, legacy_id)
        still_open = clients.opened.value
        _send("POST", f"/api/v1/trail-systems/{system_id}/compile", key, {})
    except Exception:
        clients.stop.set()
        raise
    told_after = time.monotonic()
    while clients.told.value < held and time.monotonic() - told_after < 15:
        time.sleep(0.1)
    told, told_seconds = clients.told.value, time.monotonic() - told_after
    clients.stop.set()
    clients.join(timeout=30)
    return {
        f"streams opened and held (target >= {TARGETS['streams']})": held,
        "streams refused or failed": failed,
        "time to open them (s)": round(opening, 1),
        "streams told of a compile": f"{told} within {told_seconds:.1f} s",
        f"stream process CPU while they idle, {IDLE_SECONDS} s (% of a core)": f"{idle:.1%}",
        "legacy /ts requests/s without streams": round(without),
        f"legacy /ts requests/s with {still_open} streams held": round(with_streams),
        "legacy /ts with streams, share of without (target >= 90%)": (
            f"{with_streams / without:.0%}"
        ),
        "topology CPU per legacy request, without / with streams (ms)": (
            f"{cpu_without:.2f} / {cpu_with:.2f}"
        ),
    }


def _chromium(playwright):
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


def _write_to_visible(browser, system_id: str, key: str) -> dict:
    """Each write's API answer until the page's line of the trail has the new status."""
    from trails.models import Trail  # Django is set up by the runner

    trails = list(
        Trail.objects.filter(trail_system_id=system_id, hidden=False, type="Standard")
        .order_by("order")
        .values_list("id", "status")[:WRITES]
    )
    context = browser.new_context(viewport={"width": 1000, "height": 800})
    page = context.new_page()
    page.goto(f"{BASE}/map/{system_id}")
    page.wait_for_selector('#map-status[data-connection="live"]', timeout=30_000)
    latencies = []
    for i in range(WRITES):
        trail_id, status = trails[i % len(trails)]
        status = next(s for s in STATUSES if s != status)
        trails[i % len(trails)] = (trail_id, status)
        _send("PATCH", f"/api/v1/trails/{trail_id}", key, {"status": status})
        answered = time.monotonic()
        page.wait_for_selector(
            f'path.trail-line[data-trail-id="{trail_id}"][data-status="{status}"]',
            state="attached",
            timeout=30_000,
        )
        latencies.append(time.monotonic() - answered)
    context.close()
    return {
        "writes": WRITES,
        "write answered to change on the page, p50 (s)": round(percentile(latencies, 0.5), 3),
        f"write answered to change on the page, p95 (s) (target <= {TARGETS['visible p95 (s)']})": (
            round(percentile(latencies, 0.95), 3)
        ),
        "write answered to change on the page, max (s)": round(max(latencies), 3),
    }


# Set before the page's scripts run: when the first trail line is drawn.
FIRST_TRAIL_MARK = """
new MutationObserver(function (changes, observer) {
  if (document.querySelector("path.trail-line")) {
    window.firstTrailDrawn = performance.now();
    observer.disconnect();
  }
}).observe(document, { childList: true, subtree: true });
"""


def throttled_phone_page(browser, init_script: str):
    """A cold phone page (new context, no cache) under the THROTTLE network and CPU_SLOWDOWN,
    `init_script` run before the page's own: (context, page, its DevTools session, the bytes
    moved by request id, filled as requests finish)."""
    context = browser.new_context(**PHONE)
    page = context.new_page()
    page.add_init_script(init_script)
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    cdp.send("Network.emulateNetworkConditions", THROTTLE)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": CPU_SLOWDOWN})
    moved: dict[str, int] = {}
    cdp.on(
        "Network.loadingFinished",
        lambda e: moved.update({e["requestId"]: int(e["encodedDataLength"])}),
    )
    return context, page, cdp, moved


def _throttled_first_render(browser, system_id: str) -> dict:
    context, page, cdp, moved = throttled_phone_page(browser, FIRST_TRAIL_MARK)
    types: dict[str, str] = {}
    cdp.on("Network.responseReceived", lambda e: types.update({e["requestId"]: e["type"]}))
    page.goto(f"{BASE}/map/{system_id}", wait_until="load", timeout=120_000)
    page.wait_for_selector("path.trail-line", state="attached", timeout=120_000)
    page.wait_for_load_state("networkidle", timeout=120_000)
    first_render = page.evaluate("window.firstTrailDrawn") / 1000
    by_type: dict[str, int] = {}
    for request_id, size in moved.items():
        kind = types.get(request_id, "Other")
        by_type[kind] = by_type.get(kind, 0) + size
    context.close()
    total = sum(moved.values())
    return {
        "profile": (
            f"390 x 844, {THROTTLE['downloadThroughput'] * 8 / 1e6:.1f} Mbps down, "
            f"{THROTTLE['latency']} ms latency, {CPU_SLOWDOWN}x CPU slowdown, cold cache"
        ),
        f"demo map first render, trails drawn (s) (target <= {TARGETS['first render (s)']})": (
            round(first_render, 2)
        ),
        f"bytes moved until idle (target <= {TARGETS['bytes']:,})": total,
        "  bytes by kind": ", ".join(f"{k} {v:,}" for k, v in sorted(by_type.items())),
    }


def _key() -> str:
    user = User.objects.filter(uid="bench-live").first() or User.objects.create_superuser(
        uid="bench-live", email="bench-live@example.org"
    )
    return create_api_key(user)[1]


@contextmanager
def demo_on_topology(prefix: str) -> Iterator[tuple[Topology, object]]:
    """The Procfile's topology, once it answers, on the demo system, with a queue and media
    folder of its own: (topology, demo system), stopped afterwards."""
    from demo.loader import load_demo  # Django is set up by the runner

    with real_broker(prefix) as queue, tempfile.TemporaryDirectory(prefix=f"{prefix}-") as folder:
        topology = Topology(queue, Path(folder))
        try:
            system, _ = load_demo()
            topology.wait_until_up(system.pk)
            yield topology, system
        finally:
            topology.stop()


@contextmanager
def demo_topology(prefix: str) -> Iterator[tuple[Topology, object, str, str]]:
    """demo_on_topology with bench_legacy's 500-trail system and an API key: (topology, demo
    system, the 500-trail system's id, the key)."""
    legacy_id = _seed()
    key = _key()
    with demo_on_topology(prefix) as (topology, system):
        yield topology, system, legacy_id, key


def run() -> dict[str, dict]:
    from playwright.sync_api import sync_playwright

    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"  # Playwright's loop in this thread
    random.seed(7)
    results = {}
    with demo_topology("bench-live") as (topology, system, legacy_id, key):
        with sync_playwright() as playwright:
            browser = _chromium(playwright)
            results["Live map: write to change in an open page (the demo)"] = {
                "set-up": _set_up(),
                **_write_to_visible(browser, system.pk, key),
            }
            results["Live map: first render on a throttled phone (demo map)"] = (
                _throttled_first_render(browser, system.pk)
            )
            browser.close()
        results[f"Live map: {STREAMS:,} streams held, legacy beside them"] = {
            "set-up": _set_up(),
            **_streams_and_legacy(topology, system.pk, legacy_id, key),
        }
    return results


def _set_up() -> str:
    return (
        "honcho running the Procfile: gunicorn 2 workers, uvicorn (streams), celery worker 2 "
        f"processes and beat, PostgreSQL, Redis; loopback; {os.cpu_count()} CPUs; load average "
        f"{os.getloadavg()[0]:.1f} at the end"
    )
