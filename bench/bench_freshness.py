"""Freshness measured from outside, on the production topology as the Procfile starts it
(honcho: gunicorn, the Celery worker, the copies' worker, the webhooks' worker, beat and the
streams' server; PostgreSQL and Redis), the published files fetched from the service as a
reader fetches them (local storage, served by gunicorn, compressed when the copies exist).

A 148-trail system (the real Lost Trail Powder Mountain network), then the 5,102-trail OSM
northeast network, each take WRITES status PATCHes through the management API (20 and 5 per
second), every one a real change, twice side by side: with the published file's compressed
copies made of the version that stays (the service's way), then with a topology started
again with MAP_FILE_COPIES_IN_COMPILE, the copies made inside every compile before the file
is named (the way before issue 32). Each write is timed from its response until the file
named by the legacy `GET /ts/:id` (its geoJsonUrl) shows it; a poller reads /ts every
POLL_SECONDS and, when the name changes, the file, accepting gzip and brotli as a browser
does. The time is split along the path with the compile request's own timestamps (queued:
request to compile start; compile; compile commit to shown). After the last write, a reader
asking for brotli, then one asking for gzip, look for the newest file's copy (checked against
the file as written): the time from the last write's answer until both get it. Nothing is
measured before the topology is warm (WARM_UP_WRITES). The CPU time each process of the
topology used per write, read right before the measured writes and once they are served, is
given, a figure other people's load on the machine inflates little; the worker's "all in" is
the compile worker's and the copies' worker's. Needs Redis (REDIS_URL, default redis://127.0.0.1:6379/15).
"""

import gzip
import json
import multiprocessing
import os
import queue
import random
import shutil
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

import brotli
import orjson

from apikeys.models import User
from bench.bench_live import Topology
from bench.bench_publishing import LARGE, import_system
from bench.common import cpu_seconds, percentile, real_broker
from publishing.models import CompileRequest
from tests.factories import create_api_key
from trails.models import Trail

PORT = int(os.environ.get("BENCH_FRESHNESS_PORT", "8150"))
BASE = f"http://127.0.0.1:{PORT}"
SMALL = "lost_trail_powder_mtn_osm.geojson"
TARGETS = {SMALL: 0.1, LARGE: 0.3}  # p95, seconds (issues 32 and 41)
COPIES_TARGET_SECONDS = 5.0  # last write to the newest file's copies served (issue 41)
WORKER_CPU_TARGET_MS = 50.0  # per write, all in, on the 5,102-trail system (issue 41)
# BENCH_FRESHNESS_QUICK=1: a smoke run that the bench works (the 148-trail system only, the
# service's way of making copies only, 20 writes); its figures are not the bench's.
QUICK = os.environ.get("BENCH_FRESHNESS_QUICK") == "1"
WRITES = 20 if QUICK else 100
PER_SECOND = {SMALL: 20.0, LARGE: 5.0}
# Where the published file's compressed copies are made: MAP_FILE_COPIES_IN_COMPILE.
COPIES = {"copies of the version that stays": "0", "copies inside every compile": "1"}
# The Procfile's processes by a word of their command lines (Topology.pid_of).
ROLES = {
    "web": "gunicorn",
    "worker": "worker@",
    "copies": "copies@",
    "webhooks": "webhooks@",
    "beat": "celerybeat-schedule",
    "stream": "uvicorn",
}
# A browser's Accept-Encoding, as the poller sends it.
BROWSER_ENCODINGS = "gzip, deflate, br"
# How often the poller reads /ts: a poller reading as fast as the server answers would take a
# core of this 2-core machine from the compile it is waiting for. Up to one interval of every
# figure is the poller's own.
POLL_SECONDS = 0.02
# Before anything is measured, the topology is warmed up as a service that has been running
# is: writes two at a time at a walking pace (so that both gunicorn workers take them), at
# least WARM_UP_WRITES of them, until every gunicorn worker has spent WARM_UP_WEB_CPU_SECONDS
# on them (imports, first statements of each kind: a fresh worker's first dozen PATCHes cost
# twice a steady one's) and every process of the Celery worker WARM_UP_COMPILE_CPU_SECONDS
# (the system's first compile in a process is a full one); at most WARM_UP_MAX_WRITES. None of
# it is counted.
WARM_UP_WRITES = 20
WARM_UP_MAX_WRITES = 200
WARM_UP_WEB_CPU_SECONDS = 0.3
WARM_UP_COMPILE_CPU_SECONDS = 0.05
# Then the web's CPU per PATCH, the write alone: these at a walking pace with no poller yet.
WEB_CPU_WRITES = 20
WEB_CPU_TARGET_MS = 15.0  # per PATCH, the write alone (issue 41)
WALKING_PACE_SECONDS = 0.3
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


def _fetch(url: str, accept_encoding: str = "") -> tuple[str, bytes]:
    """(Content-Encoding, body as sent)."""
    headers = {"Accept-Encoding": accept_encoding} if accept_encoding else {}
    request = urllib.request.Request(url, headers=headers)
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.headers.get("Content-Encoding", ""), response.read()


def _decoded(encoding: str, body: bytes) -> bytes:
    if encoding == "br":
        return brotli.decompress(body)
    return gzip.decompress(body) if encoding == "gzip" else body


def _get(url: str) -> bytes:
    return _fetch(url)[1]


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
    as an embed in a browser would (accepting gzip and brotli); records when /ts first named
    each file and when its bytes arrived. A process of its own that only fetches (the files
    are decoded and read afterwards), so neither reading megabytes of JSON nor the writers
    delay the other."""

    def __init__(self, system_id: str, watched: set[str], spool: Path):
        super().__init__(daemon=True)
        self.system_id = system_id
        self.watched = watched
        self.spool = spool
        self.stop = _FORK.Event()
        self._results = _FORK.Queue()
        # Filled in the parent by collect(): (when /ts first named the file, when its bytes
        # arrived, the watched trails' statuses in it); failed requests; files by encoding.
        self.seen: list[tuple[float, float, dict[str, str]]] = []
        self.failures: list[str] = []
        self.encodings: dict[str, int] = {}

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
            encoding, body = _fetch(url, BROWSER_ENCODINGS)
            received = time.time()
            path = self.spool / f"{received:.6f}.{encoding or 'plain'}"
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
            encoding = Path(path).suffix[1:]
            self.encodings[encoding] = self.encodings.get(encoding, 0) + 1
            collection = orjson.loads(_decoded(encoding, Path(path).read_bytes()))
            Path(path).unlink()
            statuses = {
                f["properties"]["trailId"]: f["properties"]["status"]
                for f in collection["features"]
                if f["properties"].get("trailId") in self.watched
            }
            self.seen.append((named, received, statuses))


def _write(trail_id: str, statuses: dict[str, str], key: str) -> tuple[float, str, str]:
    """A status PATCH that changes the trail; (answered at, trail, status)."""
    status = next(s for s in STATUSES if s != statuses[trail_id])
    statuses[trail_id] = status
    _patch(f"{BASE}/api/v1/trails/{trail_id}", key, {"status": status})
    return time.time(), trail_id, status


def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (gunicorn's workers, the Celery worker's pool)."""
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                children.append(int(stat.parent.name))
        except OSError:
            continue  # exited meanwhile
    return children


def _warm_up(system_id: str, trail_ids: list[str], statuses: dict, key: str, pids: dict) -> int:
    """Writes until every gunicorn worker and every Celery worker process is warm (see
    WARM_UP_WRITES) and their compiles are done; returns how many were sent."""
    least = {
        child: least
        for role, least in (
            ("web", WARM_UP_WEB_CPU_SECONDS),
            ("worker", WARM_UP_COMPILE_CPU_SECONDS),
        )
        for child in _children(pids[role])
    }
    before = {child: cpu_seconds([child]) for child in least}
    sent = 0
    with ThreadPoolExecutor(max_workers=2) as writers:
        while sent < WARM_UP_MAX_WRITES and (
            sent < WARM_UP_WRITES or any(cpu_seconds([c]) - before[c] < least[c] for c in least)
        ):
            pair = [trail_ids[(sent + i) % len(trail_ids)] for i in range(2)]
            list(writers.map(lambda trail_id: _write(trail_id, statuses, key), pair))
            sent += len(pair)
            time.sleep(WALKING_PACE_SECONDS)
    _served(system_id)
    return sent


def _served(system_id: str) -> None:
    """Wait until the system's compile requests are served (at most GIVE_UP_SECONDS)."""
    deadline = time.monotonic() + GIVE_UP_SECONDS
    pending = CompileRequest.objects.pending().filter(trail_system_id=system_id)
    while pending.exists() and time.monotonic() < deadline:
        time.sleep(0.05)


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
            f"  {leg}, p50 / p95 (s)": f"{percentile(v, 0.5):.3f} / {percentile(v, 0.95):.3f}"
            for leg, v in legs.items()
        },
    }


def _copies_served(system_id: str, last_write: float) -> float | None:
    """Seconds from the last write's answer until a reader asking for brotli and one asking
    for gzip both get the copy of the newest file (the one /ts names once no write waits for
    a compile), equal to the file as written once decoded; None if not within
    GIVE_UP_SECONDS."""
    deadline = time.monotonic() + GIVE_UP_SECONDS
    while time.monotonic() < deadline:
        if CompileRequest.objects.pending().filter(trail_system_id=system_id).exists():
            time.sleep(0.05)
            continue
        url = orjson.loads(_get(f"{BASE}/legacy/ts/{system_id}"))["geoJsonUrl"]
        copies = {accepted: _fetch(url, accepted) for accepted in ("br", "gzip")}
        if all(encoding == accepted for accepted, (encoding, _) in copies.items()):
            served = time.time()
            written = _get(url)
            if all(_decoded(*copy) == written for copy in copies.values()):
                return served - last_write
        time.sleep(0.05)
    return None


def measure(
    system_id: str,
    statuses: dict[str, str],
    key: str,
    pids: dict[str, int],
    target: float,
    per_second: float,
) -> dict:
    trail_ids = list(statuses)[:WRITES]
    spool = Path(tempfile.mkdtemp(prefix="bench-freshness-files-"))
    poller = Poller(system_id, set(trail_ids), spool)
    warm_up_writes = _warm_up(system_id, trail_ids, statuses, key, pids)
    web_before = cpu_seconds([pids["web"]])
    for i in range(WEB_CPU_WRITES):
        _write(trail_ids[i % len(trail_ids)], statuses, key)
        time.sleep(WALKING_PACE_SECONDS)
    web_per_patch = 1000 * (cpu_seconds([pids["web"]]) - web_before) / WEB_CPU_WRITES
    _served(system_id)
    poller.start()
    time.sleep(COPIES_TARGET_SECONDS)  # the warm-up's copies made
    since = time.time()
    cpu_before = {role: cpu_seconds([pid]) for role, pid in pids.items()}
    started = time.monotonic()
    # Sent on schedule whatever the answers' times (a few at once when answers are slow).
    with ThreadPoolExecutor(max_workers=8) as writers:
        sent = []
        for i in range(WRITES):
            time.sleep(max(0.0, started + i / per_second - time.monotonic()))
            sent.append(writers.submit(_write, trail_ids[i % len(trail_ids)], statuses, key))
        writes = [future.result() for future in sent]
    # First, while the poller keeps fetching: the files it fetched are read afterwards. The
    # measured writes' work ends once their newest file's copies are served.
    copies_after = _copies_served(system_id, writes[-1][0])
    cpu = {role: cpu_seconds([pid]) - cpu_before[role] for role, pid in pids.items()}
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
    poller.stop.set()
    while poller.is_alive():  # its queue drained, or it cannot exit
        poller.collect()
        poller.join(timeout=0.1)
    poller.collect()
    shutil.rmtree(spool, ignore_errors=True)
    latencies = [
        seen[1] - answered for seen, (answered, _, _) in zip(shown_at, writes, strict=True) if seen
    ]
    per_write = {role: 1000 * seconds / WRITES for role, seconds in cpu.items()}
    worker_all_in = per_write["worker"] + per_write["copies"]
    return {
        "warm-up writes, two at a time at a walking pace (not counted)": warm_up_writes,
        "writes": WRITES,
        "writes not shown within 30 s": len(writes) - len(latencies),
        "write response to file shown, p50 (s)": round(percentile(latencies, 0.5), 3),
        f"write response to file shown, p95 (s) (target <= {target})": round(
            percentile(latencies, 0.95), 3
        ),
        "write response to file shown, max (s)": round(max(latencies), 3),
        **_stages(system_id, since, writes, shown_at),
        "writes answered per second": round((WRITES - 1) / (writes[-1][0] - writes[0][0]), 1),
        f"last write to newest file's brotli and gzip served (s) (target <= "
        f"{COPIES_TARGET_SECONDS:.0f})": (
            round(copies_after, 2) if copies_after is not None else "not within 30 s"
        ),
        f"worker CPU per write, all in: worker + copies (ms) (target <= "
        f"{WORKER_CPU_TARGET_MS:.0f} at 5,102 trails)": round(worker_all_in, 1),
        f"web CPU per PATCH alone, {WEB_CPU_WRITES} after the warm-up without the poller (ms) "
        f"(target <= {WEB_CPU_TARGET_MS:.0f})": round(web_per_patch, 1),
        f"CPU per write of {' / '.join(per_write)} (ms)": " / ".join(
            f"{ms:.1f}" for ms in per_write.values()
        ),
        "files the poller fetched, by encoding": ", ".join(
            f"{encoding} {count}" for encoding, count in sorted(poller.encodings.items())
        ),
        "poller requests failed": len(poller.failures),
    }


def run() -> dict[str, dict]:
    rng = random.Random(7)
    systems = {name: _seed_system(name, rng) for name in ([SMALL] if QUICK else TARGETS)}
    key = _key()
    results = {}
    # One media folder for both topologies: the second starts with the files the systems'
    # legacy documents name.
    with tempfile.TemporaryDirectory(prefix="bench-freshness-") as folder:
        for copies, copies_in_compile in list(COPIES.items())[: 1 if QUICK else None]:
            with real_broker("bench-freshness") as celery_queue:
                topology = Topology(
                    celery_queue,
                    Path(folder),
                    port=PORT,
                    environment={"MAP_FILE_COPIES_IN_COMPILE": copies_in_compile},
                )
                try:
                    topology.wait_until_up(systems[SMALL][0])
                    pids = {role: topology.pid_of(word) for role, word in ROLES.items()}
                    for name, (system_id, statuses) in systems.items():
                        figures = measure(
                            system_id, statuses, key, pids, TARGETS[name], PER_SECOND[name]
                        )
                        if figures["writes not shown within 30 s"]:
                            print((Path(folder) / "topology.log").read_text()[-3000:])
                        title = f"Freshness over HTTP, {len(statuses):,}-trail system, {copies}"
                        results[title] = {"set-up": _set_up(PER_SECOND[name]), **figures}
                finally:
                    topology.stop()
    return results


def _set_up(per_second: float) -> str:
    return (
        f"the Procfile under honcho (gunicorn 2 workers, celery worker 2 processes, copies' "
        f"worker at nice 10, webhooks' worker, beat, streams), PostgreSQL, Redis; files from "
        f"the service; loopback; {os.cpu_count()} CPUs; {WRITES} PATCHes at "
        f"{per_second:.0f}/s; /ts polled every {POLL_SECONDS * 1000:.0f} ms; load average "
        f"{os.getloadavg()[0]:.1f} at the end"
    )
