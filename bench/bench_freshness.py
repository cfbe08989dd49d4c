"""Freshness measured from outside, on the production topology: gunicorn, a Celery worker and
beat, PostgreSQL and Redis, as the Procfile runs them.

A 148-trail system (the real Lost Trail Powder Mountain network) takes 200 status PATCHes at
20 per second through the management API. Each write is timed from its response until the file
named by the legacy `GET /ts/:id` (its geoJsonUrl) shows it; a poller reads /ts and, when the
name changes, the file, as an embed would. Needs Redis (REDIS_URL, default
redis://127.0.0.1:6379/15).
"""

import json
import os
import random
import subprocess
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from apikeys.models import User
from bench.bench_publishing import import_system
from bench.common import ROOT
from tests.factories import create_api_key
from trails.models import Trail

HOST = "127.0.0.1"
PORT = int(os.environ.get("BENCH_FRESHNESS_PORT", "8150"))
BASE = f"http://{HOST}:{PORT}"
SYSTEM_FILE = "lost_trail_powder_mtn_osm.geojson"
WRITES = 200
PER_SECOND = 20.0
STATUSES = ("Closed", "Caution", "Open")
GIVE_UP_SECONDS = 30.0


def _seed() -> tuple[str, list[str], str]:
    system = import_system(SYSTEM_FILE, points=20, updates=5, rng=random.Random(7))
    user = User.objects.create_superuser(uid="bench-freshness", email="bench@example.org")
    _, key = create_api_key(user)
    trail_ids = list(Trail.objects.filter(trail_system=system).values_list("id", flat=True))
    return system.pk, trail_ids, key


def _processes(media: Path) -> list[subprocess.Popen]:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "MEDIA_ROOT": str(media),
        "DEBUG": "0",
        "LOG_LEVEL": "WARNING",
        "SECRET_KEY": os.environ.get("SECRET_KEY", "bench-only-secret-key"),
        "REDIS_URL": os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/15",
        "PUBLIC_BASE_URL": BASE,
    }
    venv = ROOT / ".venv/bin"
    commands = [
        [venv / "gunicorn", "config.wsgi", "--workers", "2", "--bind", f"{HOST}:{PORT}",
         "--no-control-socket"],
        [venv / "celery", "-A", "config", "worker", "--loglevel=WARNING", "--concurrency=2"],
        [venv / "celery", "-A", "config", "beat", "--loglevel=WARNING",
         "--schedule", str(media / "celerybeat-schedule")],
    ]  # fmt: skip
    log = open(media / "processes.log", "ab")  # noqa: SIM115 - closed with the processes
    return [
        subprocess.Popen([str(c) for c in command], cwd=ROOT, env=env, stdout=log, stderr=log)
        for command in commands
    ]


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.read()


def _patch(url: str, key: str, body: dict) -> None:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        method="PATCH",
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        response.read()


class Poller(threading.Thread):
    """Reads /ts/:id as fast as it answers; fetches the named file whenever the name changes;
    records when each (trail, status) was first seen in a file."""

    def __init__(self, system_id: str):
        super().__init__(daemon=True)
        self.system_id = system_id
        self.seen: list[tuple[float, dict[str, str]]] = []
        self.failures: list[str] = []
        self.stop = threading.Event()

    def run(self) -> None:
        current = None
        while not self.stop.is_set():
            try:
                current = self._poll(current)
            except OSError as exc:  # counted and shown: a slow or failed answer is a finding
                self.failures.append(repr(exc))

    def _poll(self, current: str | None) -> str | None:
        url = json.loads(_get(f"{BASE}/legacy/ts/{self.system_id}"))["geoJsonUrl"]
        if url and url != current:
            collection = json.loads(_get(url))
            statuses = {
                f["properties"]["trailId"]: f["properties"]["status"]
                for f in collection["features"]
                if "trailId" in f["properties"]
            }
            self.seen.append((time.monotonic(), statuses))
        return url


def _wait_until_up(processes: list[subprocess.Popen], system_id: str) -> None:
    for _ in range(300):
        if any(p.poll() is not None for p in processes):
            raise RuntimeError("a process of the topology exited; see processes.log")
        try:
            _get(f"{BASE}/legacy/ts/{system_id}")
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"gunicorn did not answer on {BASE}")


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def measure(system_id: str, trail_ids: list[str], key: str) -> dict:
    writes: list[tuple[float, str, str]] = []
    poller = Poller(system_id)
    poller.start()
    time.sleep(1.0)
    started = time.monotonic()
    for i in range(WRITES):
        time.sleep(max(0.0, started + i / PER_SECOND - time.monotonic()))
        trail_id = trail_ids[i % len(trail_ids)]
        status = STATUSES[(i // len(trail_ids)) % len(STATUSES)]
        _patch(f"{BASE}/api/v1/trails/{trail_id}", key, {"status": status})
        writes.append((time.monotonic(), trail_id, status))
    deadline = time.monotonic() + GIVE_UP_SECONDS
    latencies = []
    lost = 0
    for answered, trail_id, status in writes:
        shown = None
        while shown is None and time.monotonic() < deadline:
            shown = next(
                (at for at, statuses in list(poller.seen) if at >= answered
                 and statuses.get(trail_id) == status),
                None,
            )  # fmt: skip
            if shown is None:
                time.sleep(0.05)
        if shown is None:
            lost += 1
        else:
            latencies.append(shown - answered)
    poller.stop.set()
    poller.join(timeout=15)
    return {
        "writes": WRITES,
        "writes not shown within 30 s": lost,
        "write response to file shown, p50 (s)": round(_percentile(latencies, 0.5), 3),
        "write response to file shown, p95 (s) (target <= 0.3)": round(
            _percentile(latencies, 0.95), 3
        ),
        "write response to file shown, max (s)": round(max(latencies), 3),
        "files the poller fetched": len(poller.seen),
        "poller requests failed": len(poller.failures),
    }


def run() -> dict[str, dict]:
    system_id, trail_ids, key = _seed()
    with tempfile.TemporaryDirectory(prefix="bench-freshness-") as media:
        processes = _processes(Path(media))
        try:
            _wait_until_up(processes, system_id)
            figures = measure(system_id, trail_ids, key)
            if figures["writes not shown within 30 s"]:
                print((Path(media) / "processes.log").read_text()[-3000:])
        finally:
            for process in processes:
                process.terminate()
            for process in processes:
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(timeout=10)
    set_up = (
        f"gunicorn 2 workers, celery worker 2 processes and beat, PostgreSQL, Redis; loopback; "
        f"{os.cpu_count()} CPUs; {WRITES} PATCHes at {PER_SECOND:.0f}/s"
    )
    return {f"Freshness over HTTP, {len(trail_ids)}-trail system": {"set-up": set_up, **figures}}
