"""Live grooming under load: 50 trackers posting one position a second each, beside another
system's manager writing, on the production topology (honcho running the Procfile: gunicorn 2
workers, the stream process, Celery worker and beat, PostgreSQL, Redis).

The stream process takes the positions (OsmAnd protocol, GET query, each tracker from a
loopback source address of its own, as 50 phones are; the route a reverse proxy gives it) and
the worker measures the sessions and compiles. Each tracker drives along a trail of its own at
5 m/s. Another system's manager changes a trail's status through the API once a second, first
for SECONDS without trackers, then for SECONDS while they drive. Figures: the time to answer a
position (p50, p95), the time from the position that made a trail's coverage pass the rules to
the published file showing the trail groomed, the CPU the topology spent per position, and the
other system's write answer and write -> published times (p95) without and with the trackers.
"""

import http.client
import json
import os
import statistics
import tempfile
import threading
import time
import urllib.request
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlencode

from bench.bench_live import Topology
from bench.common import cpu_seconds, percentile, real_broker

HOST = "127.0.0.1"
PORT = int(os.environ.get("BENCH_TRACKERS_PORT", "8142"))  # the stream process: PORT + 1
TRACKERS = 50
SECONDS = int(os.environ.get("BENCH_TRACKERS_SECONDS", "60"))
SPEED = 5.0  # metres a second: a groomer's pace
TRAIL_METRES = 400.0
TIMEOUT_SECONDS = 120
NEIGHBOUR_TRAILS = 20
WARM_UP_SECONDS = 5
STATUSES = ("Closed", "Caution", "Open")
TARGETS = {"answer p95": 0.3, "neighbour slowdown": 1.5}


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


def _drive(riders, started: float, port: int) -> tuple[list, list[float], dict, list[int]]:
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
            connection = http.client.HTTPConnection(HOST, port, timeout=10, source_address=source)
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


def _neighbour() -> tuple[str, list[str], str]:
    """Another trail system, its trails, and an API key of a manager who may write to it."""
    from apikeys.models import User
    from tests.factories import TrailFactory, TrailSystemFactory, create_api_key

    system = TrailSystemFactory(name="Bench Neighbour")
    trails = [
        TrailFactory(trail_system=system, name=f"Neighbour {n}", status="Open").pk
        for n in range(NEIGHBOUR_TRAILS)
    ]
    user = User.objects.create_superuser(uid="bench-trackers", email="bench@example.org")
    return system.pk, trails, create_api_key(user)[1]


def _trails_in_file(media: Path, system_id: str) -> dict[str, dict]:
    """Each trail's properties in the system's published file, read from the topology's
    storage."""
    from trails.models import TrailSystem

    path = TrailSystem.objects.values_list("geo_json_path", flat=True).get(pk=system_id)
    if not path:
        return {}
    try:
        collection = json.loads((media / path).read_bytes())
    except (OSError, ValueError):  # replaced meanwhile
        return {}
    return {
        feature["properties"]["trailId"]: feature["properties"]
        for feature in collection["features"]
        if "trailId" in feature["properties"]
    }


def _neighbour_writes(
    topology: Topology, system_id: str, trails: list[str], key: str, seconds: int
) -> tuple[list[float], list[float]]:
    """A status change a second for `seconds`, each to another trail: the answer times, and
    the times from each write's request to the published file showing it (a write not shown
    within TIMEOUT_SECONDS counts as that long)."""
    from trails.models import Trail

    media = topology.folder / "media"
    answers: list[float] = []
    pending: dict[str, tuple[str, float]] = {}
    published: list[float] = []
    # As the last run left them: a change to the status a trail has is no change to publish.
    current = dict(Trail.objects.filter(pk__in=trails).values_list("pk", "status"))
    started = time.monotonic()
    for second in range(seconds):
        # Looked for every 0.1 s until the next write, not once a write: a write -> published
        # time is measured to 0.1 s, not to the next second.
        while (wait := started + second - time.monotonic()) > 0:
            time.sleep(min(wait, 0.1))
            _shown(media, system_id, pending, published)
        trail_id = trails[second % len(trails)]
        if trail_id in pending:  # its last change is not shown yet: that one counts as lost
            published.append(TIMEOUT_SECONDS)
        status = next(s for s in STATUSES if s != current[trail_id])
        current[trail_id] = status
        request = urllib.request.Request(
            f"{topology.base}/api/v1/trails/{trail_id}",
            data=json.dumps({"status": status}).encode(),
            method="PATCH",
            headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
        )
        begun = time.monotonic()
        with urllib.request.urlopen(request, timeout=30) as response:
            response.read()
        answers.append(time.monotonic() - begun)
        pending[trail_id] = (status, begun)
        _shown(media, system_id, pending, published)
    deadline = time.monotonic() + TIMEOUT_SECONDS
    while pending and time.monotonic() < deadline:
        time.sleep(0.1)
        _shown(media, system_id, pending, published)
    published += [TIMEOUT_SECONDS] * len(pending)
    return answers, published


def _shown(media: Path, system_id: str, pending: dict, published: list[float]) -> None:
    """Move the writes the published file now shows from `pending` to `published`."""
    if not pending:
        return
    now = time.monotonic()
    in_file = _trails_in_file(media, system_id)
    for trail_id, (status, begun) in list(pending.items()):
        if in_file.get(trail_id, {}).get("status") == status:
            published.append(now - begun)
            del pending[trail_id]


def measure(queue: str, folder: Path) -> dict[str, dict]:
    system, riders = _seed()
    neighbour, neighbour_trails, key = _neighbour()
    covering = {}
    for secret, route in riders:
        if first := _first_groomed_second(system, route):
            second, trail_id = first
            covering[trail_id] = (secret, second)
    topology = Topology(queue, folder, PORT)
    published: dict[str, float] = {}
    cpu = None
    try:
        topology.wait_until_up(neighbour)
        # The first writes and compiles of a process start cold: they are not the baseline.
        _neighbour_writes(topology, neighbour, neighbour_trails, key, WARM_UP_SECONDS)
        alone = _neighbour_writes(topology, neighbour, neighbour_trails, key, SECONDS)
        pids = [topology.process.pid]
        cpu_before = cpu_seconds(pids)
        started = time.monotonic() + 1
        threads, answers, sent, failures = _drive(riders, started, PORT + 1)
        beside = _neighbour_writes(topology, neighbour, neighbour_trails, key, SECONDS)
        deadline = time.monotonic() + SECONDS + TIMEOUT_SECONDS
        while time.monotonic() < deadline and (cpu is None or len(published) < len(covering)):
            now = time.monotonic()
            for trail_id, properties in _trails_in_file(
                topology.folder / "media", system.pk
            ).items():
                if trail_id not in published and properties["updates"].get("surfaceConditions"):
                    published[trail_id] = now
            if cpu is None and not any(thread.is_alive() for thread in threads):
                cpu, driven = cpu_seconds(pids) - cpu_before, now - started
            time.sleep(0.2)
        for thread in threads:
            thread.join()
    finally:
        topology.stop()
    latencies = [
        published[trail_id] - sent[covering[trail_id]]
        for trail_id in covering
        if trail_id in published and covering[trail_id] in sent
    ]
    positions = len(answers)
    answer_p95 = percentile(answers, 0.95)
    alone_write, beside_write = percentile(alone[0], 0.95), percentile(beside[0], 0.95)
    write_ratio = beside_write / alone_write
    published_ratio = percentile(beside[1], 0.95) / percentile(alone[1], 0.95)
    return {
        f"live grooming: {TRACKERS} trackers, one position a second each": {
            "set-up": "honcho running the Procfile (gunicorn 2 workers, the stream process "
            "taking the positions, celery worker 2 processes and beat), PostgreSQL, Redis; "
            f"{SECONDS} s; load average {os.getloadavg()[0]:.1f} at the end",
            "positions posted": positions,
            "not answered 200": len(failures),
            "answer p50 (ms)": round(1000 * statistics.median(answers), 1),
            f"answer p95 (ms) (target <= {1000 * TARGETS['answer p95']:.0f})": round(
                1000 * answer_p95, 1
            ),
            "trails groomed / expected": f"{len(published)} / {len(covering)}",
            "position to published groomed, p50 (s)": round(statistics.median(latencies), 1)
            if latencies
            else None,
            "position to published groomed, p95 (s) (target <= 60)": round(
                percentile(latencies, 0.95), 1
            )
            if latencies
            else None,
            "CPU per position, whole topology (ms)": round(1000 * cpu / positions, 2),
            "CPU while driving, share of one core": round(cpu / driven, 2),
            "other system's write p95 (ms), alone / beside the trackers": (
                f"{1000 * alone_write:.0f} / {1000 * beside_write:.0f}"
            ),
            "other system's write -> published p95 (s), alone / beside the trackers": (
                f"{percentile(alone[1], 0.95):.2f} / {percentile(beside[1], 0.95):.2f}"
            ),
            f"slowdown beside the trackers, write / published (target <= "
            f"{TARGETS['neighbour slowdown']})": f"{write_ratio:.2f} / {published_ratio:.2f}",
        }
    }


def run() -> dict[str, dict]:
    with (
        real_broker("bench-trackers") as queue,
        tempfile.TemporaryDirectory(prefix="bench-trackers-") as folder,
    ):
        return measure(queue, Path(folder))
