"""Freshness measured from outside, on the production topology: gunicorn, a Celery worker and
beat, PostgreSQL and Redis, as the Procfile runs them.

A 148-trail system (the real Lost Trail Powder Mountain network), then the 5,102-trail OSM
northeast network, each take 200 status PATCHes through the management API (20 and 5 per
second), every one a real change, twice side by side: with the published file's compressed
copies made after the compile, off the freshness path (the service's way), then with a
topology started again with MAP_FILE_COPIES_IN_COMPILE, the copies made inside the compile
before the file is named (the way before issue 32). Each write is timed from its response
until the file named by the legacy `GET /ts/:id` (its geoJsonUrl) shows it; a poller reads /ts
every POLL_SECONDS and, when the name changes, the file, as an embed would. The time is split
along the path with the compile request's own timestamps (queued: request to compile start;
compile; compile commit to shown), and the CPU time the whole topology used per write is
given, a figure other people's load on the machine does not inflate. Needs Redis (REDIS_URL, default
redis://127.0.0.1:6379/15).
"""

import json
import multiprocessing
import os
import queue
import random
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

import orjson

from apikeys.models import User
from bench.bench_publishing import LARGE, import_system
from bench.common import ROOT, cpu_seconds
from publishing.models import CompileRequest
from tests.factories import create_api_key
from trails.models import Trail

HOST = "127.0.0.1"
PORT = int(os.environ.get("BENCH_FRESHNESS_PORT", "8150"))
BASE = f"http://{HOST}:{PORT}"
# The published files come from a static file server of their own, as from object storage or
# a CDN in production: fetching megabytes through gunicorn's two workers would hold back the
# API writes being measured.
FILES_PORT = int(os.environ.get("BENCH_FRESHNESS_FILES_PORT", str(PORT + 1)))
ROLES = ("gunicorn", "worker", "beat", "file server")
SMALL = "lost_trail_powder_mtn_osm.geojson"
TARGETS = {SMALL: 0.1, LARGE: 0.3}  # p95, seconds (issue 32)
WRITES = 200
PER_SECOND = {SMALL: 20.0, LARGE: 5.0}
# Where the published file's compressed copies are made: MAP_FILE_COPIES_IN_COMPILE.
COPIES = {"copies off the path": "0", "copies inside the compile": "1"}
# How often the poller reads /ts: a poller reading as fast as the server answers would take a
# core of this 2-core machine from the compile it is waiting for. Up to one interval of every
# figure is the poller's own.
POLL_SECONDS = 0.02
# Writes at a walking pace before the measured run, so that both worker processes have made
# the system's first (full) compile, as they have in a service that has been running.
WARM_UP_WRITES = 6
STATUSES = ("Closed", "Caution", "Open")
GIVE_UP_SECONDS = 30.0


def _seed_system(filename: str, rng: random.Random) -> tuple[str, dict[str, str]]:
    """The system's id and its trails' statuses."""
    points, updates = (20, 5) if filename == SMALL else (1000, 200)
    system = import_system(filename, points=points, updates=updates, rng=rng)
    return system.pk, dict(Trail.objects.filter(trail_system=system).values_list("id", "status"))


def _key() -> str:
    user = User.objects.create_superuser(uid="bench-freshness", email="bench@example.org")
    return create_api_key(user)[1]


def _processes(media: Path, copies_in_compile: str) -> list[subprocess.Popen]:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "MEDIA_ROOT": str(media),
        "DEBUG": "0",
        "LOG_LEVEL": "WARNING",
        "SECRET_KEY": os.environ.get("SECRET_KEY", "bench-only-secret-key"),
        "REDIS_URL": os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/15",
        "PUBLIC_BASE_URL": BASE,
        "MEDIA_URL": f"http://{HOST}:{FILES_PORT}/",
        "MAP_FILE_COPIES_IN_COMPILE": copies_in_compile,
    }
    venv = ROOT / ".venv/bin"
    commands = [
        [venv / "gunicorn", "config.wsgi", "--workers", "2", "--bind", f"{HOST}:{PORT}",
         "--no-control-socket"],
        [venv / "celery", "-A", "config", "worker", "--loglevel=WARNING", "--concurrency=2"],
        [venv / "celery", "-A", "config", "beat", "--loglevel=WARNING",
         "--schedule", str(media / "celerybeat-schedule")],
        [sys.executable, "-m", "http.server", str(FILES_PORT), "--bind", HOST,
         "--directory", str(media)],
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


_FORK = multiprocessing.get_context("fork")


class Poller(_FORK.Process):
    """Reads /ts/:id every POLL_SECONDS and fetches the named file whenever the name changes,
    as an embed would; records when /ts first named each file and when its bytes arrived.
    A process of its own that only fetches (the files are read afterwards), so neither
    reading megabytes of JSON nor the writers delay the other."""

    def __init__(self, system_id: str, watched: set[str], spool: Path):
        super().__init__(daemon=True)
        self.system_id = system_id
        self.watched = watched
        self.spool = spool
        self.stop = _FORK.Event()
        self._results = _FORK.Queue()
        # Filled in the parent by collect(): (when /ts first named the file, when its bytes
        # arrived, the watched trails' statuses in it); failed requests.
        self.seen: list[tuple[float, float, dict[str, str]]] = []
        self.failures: list[str] = []

    def run(self) -> None:
        current = None
        while not self.stop.wait(POLL_SECONDS):
            try:
                current = self._poll(current)
            except OSError as exc:  # counted and shown: a slow or failed answer is a finding
                self._results.put(("failed", repr(exc)))

    def _poll(self, current: str | None) -> str | None:
        url = orjson.loads(_get(f"{BASE}/legacy/ts/{self.system_id}"))["geoJsonUrl"]
        if url and url != current:
            named = time.time()
            body = _get(url)
            received = time.time()
            path = self.spool / f"{received:.6f}.json"
            path.write_bytes(body)
            self._results.put(("seen", (named, received, str(path))))
        return url

    def collect(self) -> None:
        """Read the files fetched since the last call."""
        while True:
            try:
                kind, value = self._results.get_nowait()
            except queue.Empty:
                return
            if kind == "failed":
                self.failures.append(value)
                continue
            named, received, path = value
            collection = orjson.loads(Path(path).read_bytes())
            Path(path).unlink()
            statuses = {
                f["properties"]["trailId"]: f["properties"]["status"]
                for f in collection["features"]
                if f["properties"].get("trailId") in self.watched
            }
            self.seen.append((named, received, statuses))


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


def _write(trail_id: str, statuses: dict[str, str], key: str) -> tuple[float, str, str]:
    """A status PATCH that changes the trail; (answered at, trail, status)."""
    status = next(s for s in STATUSES if s != statuses[trail_id])
    statuses[trail_id] = status
    _patch(f"{BASE}/api/v1/trails/{trail_id}", key, {"status": status})
    return time.time(), trail_id, status


def _stages(system_id: str, since: float, writes: list, shown: list) -> dict[str, object]:
    """p50 / p95 of each leg of the path, from the compile requests' own timestamps."""
    rows = list(
        CompileRequest.objects.filter(
            trail_system_id=system_id, requested_on__gte=datetime.fromtimestamp(since, UTC)
        )
        .order_by("requested_on")
        .values_list("requested_on", "started_on", "done_on")
    )
    if len(rows) != len(writes):  # one request per PATCH; anything else is not comparable
        return {"  stages": f"not split: {len(rows)} requests for {len(writes)} writes"}
    legs: dict[str, list[float]] = {
        "queued": [],
        "compile": [],
        "compile commit to /ts naming the file": [],
        "file fetched by the poller": [],
    }
    for seen, (asked, started, done) in zip(shown, rows, strict=True):
        if seen is not None and done is not None:
            named, at = seen
            legs["queued"].append((started - asked).total_seconds())
            legs["compile"].append((done - started).total_seconds())
            legs["compile commit to /ts naming the file"].append(named - done.timestamp())
            legs["file fetched by the poller"].append(at - named)
    return {
        "compiles": len({(started, done) for _, started, done in rows}),
        **{
            f"  {leg}, p50 / p95 (s)": f"{_percentile(v, 0.5):.3f} / {_percentile(v, 0.95):.3f}"
            for leg, v in legs.items()
        },
    }


def measure(
    system_id: str,
    statuses: dict[str, str],
    key: str,
    pids: list[int],
    target: float,
    per_second: float,
) -> dict:
    trail_ids = list(statuses)[:WRITES]
    spool = Path(tempfile.mkdtemp(prefix="bench-freshness-files-"))
    poller = Poller(system_id, set(trail_ids), spool)
    poller.start()
    for trail_id in trail_ids[-WARM_UP_WRITES:]:
        _write(trail_id, statuses, key)
        time.sleep(0.5)
    time.sleep(1.0)
    since = time.time()
    cpu_before = [cpu_seconds([pid]) for pid in pids]
    started = time.monotonic()
    # Sent on schedule whatever the answers' times (a few at once when answers are slow).
    with ThreadPoolExecutor(max_workers=8) as writers:
        sent = []
        for i in range(WRITES):
            time.sleep(max(0.0, started + i / per_second - time.monotonic()))
            sent.append(writers.submit(_write, trail_ids[i % len(trail_ids)], statuses, key))
        writes = [future.result() for future in sent]
    deadline = time.monotonic() + GIVE_UP_SECONDS
    shown_at: list[tuple[float, float] | None] = []
    for answered, trail_id, status in writes:
        while True:  # each write looked for at least once, also past the deadline
            poller.collect()
            shown = next(
                ((named, at) for named, at, seen in list(poller.seen) if at >= answered
                 and seen.get(trail_id) == status),
                None,
            )  # fmt: skip
            if shown is not None or time.monotonic() >= deadline:
                break
            time.sleep(0.05)
        shown_at.append(shown)
    cpu = [cpu_seconds([pid]) - before for pid, before in zip(pids, cpu_before, strict=True)]
    poller.stop.set()
    poller.join(timeout=15)
    poller.collect()
    shutil.rmtree(spool, ignore_errors=True)
    latencies = [
        seen[1] - answered for seen, (answered, _, _) in zip(shown_at, writes, strict=True) if seen
    ]
    return {
        "writes": WRITES,
        "writes not shown within 30 s": len(writes) - len(latencies),
        "write response to file shown, p50 (s)": round(_percentile(latencies, 0.5), 3),
        f"write response to file shown, p95 (s) (target <= {target})": round(
            _percentile(latencies, 0.95), 3
        ),
        "write response to file shown, max (s)": round(max(latencies), 3),
        **_stages(system_id, since, writes, shown_at),
        "writes answered per second": round((WRITES - 1) / (writes[-1][0] - writes[0][0]), 1),
        f"CPU per write of {' / '.join(ROLES)} (ms)": " / ".join(
            f"{1000 * seconds / WRITES:.1f}" for seconds in cpu
        ),
        "files the poller fetched": len(poller.seen),
        "poller requests failed": len(poller.failures),
    }


def run() -> dict[str, dict]:
    rng = random.Random(7)
    systems = {name: _seed_system(name, rng) for name in TARGETS}
    key = _key()
    results = {}
    # One media folder for both topologies: the second starts with the files the systems'
    # legacy documents name.
    with tempfile.TemporaryDirectory(prefix="bench-freshness-") as media:
        for copies, copies_in_compile in COPIES.items():
            processes = _processes(Path(media), copies_in_compile)
            try:
                _wait_until_up(processes, systems[SMALL][0])
                for name, (system_id, statuses) in systems.items():
                    figures = measure(
                        system_id,
                        statuses,
                        key,
                        [p.pid for p in processes],
                        TARGETS[name],
                        PER_SECOND[name],
                    )
                    if figures["writes not shown within 30 s"]:
                        print((Path(media) / "processes.log").read_text()[-3000:])
                    title = f"Freshness over HTTP, {len(statuses):,}-trail system, {copies}"
                    results[title] = {"set-up": _set_up(PER_SECOND[name]), **figures}
            finally:
                for process in processes:
                    process.terminate()
                for process in processes:
                    try:
                        process.wait(timeout=30)
                    except subprocess.TimeoutExpired:
                        process.kill()
                        process.wait(timeout=10)
    return results


def _set_up(per_second: float) -> str:
    return (
        f"gunicorn 2 workers, celery worker 2 processes and beat, PostgreSQL, Redis; loopback; "
        f"{os.cpu_count()} CPUs; {WRITES} PATCHes at {per_second:.0f}/s; /ts polled every "
        f"{POLL_SECONDS * 1000:.0f} ms; load average {os.getloadavg()[0]:.1f} at the end"
    )
