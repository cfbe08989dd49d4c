"""Live grooming under load: 50 trackers posting one position a second each.

gunicorn (config.wsgi, 2 sync workers) takes the positions (OsmAnd protocol, GET query, each
tracker from a loopback source address of its own, as 50 phones are) and a real Celery worker
(2 processes) measures the sessions and compiles. Each tracker drives along a trail of its own
at 5 m/s. Figures: the time to answer a position (p50, p95), the time from the position that
made a trail's coverage pass the rules to the published file showing the trail groomed (p50,
p95), and the CPU the server and the worker spent per position.
"""

import http.client
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlencode

from bench.common import ROOT, cpu_seconds, real_broker, start_gunicorn

HOST = "127.0.0.1"
PORT = int(os.environ.get("BENCH_TRACKERS_PORT", "8142"))
WORKERS = 2
TRACKERS = 50
SECONDS = int(os.environ.get("BENCH_TRACKERS_SECONDS", "60"))
SPEED = 5.0  # metres a second: a groomer's pace
TRAIL_METRES = 400.0
TIMEOUT_SECONDS = 120


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def _seed():
    """One system of TRACKERS parallel trails 100 m apart, a tracker each, and each tracker's
    route: a position a second along its trail (and back) for SECONDS."""
    from core.actors import Actor, Via
    from grooming.trackers import create_tracker
    from tests.factories import TrailSystemFactory
    from tests.grooming.geo import at, path
    from trails.services import create_trail

    actor = Actor("bench", Via.WEB_APP)
    system = TrailSystemFactory(name="Bench Trackers")
    riders = []
    for n in range(TRACKERS):
        north = n * 100.0
        create_trail(
            system=system,
            name=f"Trail {n}",
            geometry={
                "type": "LineString",
                "coordinates": path([(0, north), (TRAIL_METRES, north)], step=20),
            },
            actor=actor,
        )
        secret = create_tracker(system=system, name=f"Machine {n}", actor=actor).secret
        route = []
        for second in range(SECONDS):
            travelled = (second * SPEED) % (2 * TRAIL_METRES)
            east = travelled if travelled <= TRAIL_METRES else 2 * TRAIL_METRES - travelled
            route.append(at(east, north))
        riders.append((secret, route))
    return system, riders


def _first_groomed_second(system, route) -> tuple[int, str] | None:
    """The second whose position first makes a trail groomed (the upload's rules on the
    positions so far: a bisection, since coverage only grows along a route), and the trail."""
    from core.errors import Invalid
    from grooming.services import DEFAULT_TOLERANCE_METERS, measure
    from grooming.tracks import Track

    def groomed(second: int) -> list:
        try:
            track = Track([route[: second + 1]], None)
            return measure(system, track, DEFAULT_TOLERANCE_METERS)
        except Invalid:  # not near a trail yet
            return []

    if not groomed(len(route) - 1):
        return None
    low, high = 1, len(route) - 1
    while low < high:
        middle = (low + high) // 2
        if groomed(middle):
            high = middle
        else:
            low = middle + 1
    return low, groomed(low)[0].trail_id


def _drive(riders, started: float) -> tuple[list, list[float], dict, list[int]]:
    """Every tracker posts its route, a position a second, from a thread of its own: the
    threads, and (filled as they go) the answer times, the send time of each position by
    (secret, second), and the statuses that were not 200."""
    from django.utils import timezone

    answers: list[float] = []
    sent: dict[tuple[str, int], float] = {}
    failures: list[int] = []
    lock = threading.Lock()
    clock = timezone.now() - timedelta(seconds=SECONDS + 5)

    def ride(index: int, secret: str, route: list) -> None:
        source = (f"127.2.{index // 200}.{index % 200 + 1}", 0)
        for second, (lng, lat) in enumerate(route):
            time.sleep(max(0.0, started + second + index / TRACKERS - time.monotonic()))
            moment = clock + timedelta(seconds=second)
            query = urlencode(
                {"id": secret, "lat": lat, "lon": lng, "timestamp": int(moment.timestamp()) + 5}
            )
            begun = time.monotonic()
            connection = http.client.HTTPConnection(HOST, PORT, timeout=10, source_address=source)
            try:
                connection.request("GET", f"/track/osmand?{query}")
                status = connection.getresponse().status
            except OSError:
                status = 0
            finally:
                connection.close()
            took = time.monotonic() - begun
            with lock:
                answers.append(took)
                sent[secret, second] = begun
                if status != 200:
                    failures.append(status)

    threads = [
        threading.Thread(target=ride, args=(i, secret, route))
        for i, (secret, route) in enumerate(riders)
    ]
    for thread in threads:
        thread.start()
    return threads, answers, sent, failures


def measure(queue: str) -> dict[str, dict]:
    from django.conf import settings

    from tests.grooming.replay import groomed_in_file
    from tests.integration.conftest import Worker

    system, riders = _seed()
    covering = {}
    for secret, route in riders:
        if first := _first_groomed_second(system, route):
            second, trail_id = first
            covering[trail_id] = (secret, second)
    log_path = Path(tempfile.gettempdir()) / f"{queue}.log"
    worker = Worker(settings.MEDIA_ROOT, log_path)
    worker.start()
    server = start_gunicorn(HOST, PORT, WORKERS, {"CELERY_QUEUE": queue})
    # Beat's sweep, as `make run` loops it: it measures what arrived after a session's last
    # measurement (in production beat queues it to the worker every 15 s).
    sweep = subprocess.Popen(
        [sys.executable, "manage.py", "sweep_grooming_sessions", "--every", "15"],
        cwd=ROOT,
        env={**os.environ, "CELERY_QUEUE": queue},
    )
    published: dict[str, float] = {}
    cpu = None
    try:
        pids = [server.pid, worker.process.pid, sweep.pid]
        cpu_before = cpu_seconds(pids)
        started = time.monotonic() + 1
        threads, answers, sent, failures = _drive(riders, started)
        deadline = time.monotonic() + SECONDS + TIMEOUT_SECONDS
        while time.monotonic() < deadline and (cpu is None or len(published) < len(covering)):
            now = time.monotonic()
            for trail_id in groomed_in_file(system.pk) - set(published):
                published[trail_id] = now
            if cpu is None and not any(thread.is_alive() for thread in threads):
                cpu, driven = cpu_seconds(pids) - cpu_before, now - started
            time.sleep(0.2)
        for thread in threads:
            thread.join()
    finally:
        sweep.terminate()
        sweep.wait(timeout=30)
        server.terminate()
        server.wait(timeout=30)
        worker.stop()
    latencies = [
        published[trail_id] - sent[covering[trail_id]]
        for trail_id in covering
        if trail_id in published and covering[trail_id] in sent
    ]
    positions = len(answers)
    return {
        f"live grooming: {TRACKERS} trackers, one position a second each": {
            "set-up": f"gunicorn {WORKERS} sync workers, celery worker 2 processes, PostgreSQL, "
            f"Redis; {SECONDS} s; load average {os.getloadavg()[0]:.1f} at the end",
            "positions posted": positions,
            "not answered 200": len(failures),
            "answer p50 (ms)": round(1000 * statistics.median(answers), 1),
            "answer p95 (ms)": round(1000 * percentile(answers, 0.95), 1),
            "trails groomed / expected": f"{len(published)} / {len(covering)}",
            "position to published groomed, p50 (s)": round(statistics.median(latencies), 1)
            if latencies
            else None,
            "position to published groomed, p95 (s) (target <= 60)": round(
                percentile(latencies, 0.95), 1
            )
            if latencies
            else None,
            "CPU per position, server, worker and sweep (ms)": round(1000 * cpu / positions, 2),
            "CPU while driving, share of one core": round(cpu / driven, 2),
        }
    }


def run() -> dict[str, dict]:
    with real_broker("bench-trackers") as queue:
        return measure(queue)
