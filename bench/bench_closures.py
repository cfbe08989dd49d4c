"""Closures on the 5,102-trail OpenStreetMap northeast system (bench_publishing's import):

- a closure's write -> closures.geojson shows it: the service's transaction (the closure, its
  history, the closures file written again: a closure changes no map file, so nothing is
  compiled), until the stored closures file read as the feed reads it holds the new closure;
  p95 of RUNS, target <= 0.3 s;
- a route check of a 10,000-point GPX (a point every 3 m along trail after trail) against the
  system with those closures in effect and its Closed trails: parsing and checking, p95 of
  CHECKS, target <= 0.5 s.

In-process, on PostgreSQL; the CPU time of this process is given beside the wall time."""

import random
import statistics
import tempfile
import time
from datetime import UTC, datetime
from itertools import pairwise
from pathlib import Path

from django.test import override_settings
from django.utils import timezone

from bench.bench_publishing import LARGE, import_system
from bench.common import percentile

RUNS = 20
CHECKS = 5
ROUTE_POINTS = 10_000
WRITE_TARGET_SECONDS = 0.3
CHECK_TARGET_SECONDS = 0.5


def _route_gpx(trails, rng: random.Random) -> bytes:
    """10,000 points, 3 m apart, along the lines of consecutive trails."""
    from pyproj import Geod

    geod = Geod(ellps="WGS84")
    points: list[tuple[float, float]] = []
    for trail in trails:
        line = trail.geometry["coordinates"]
        if trail.geometry["type"] != "LineString":
            line = line[0]
        for a, b in pairwise(line):
            azimuth, _, length = geod.inv(a[0], a[1], b[0], b[1])
            steps = max(int(length // 3), 1)
            for step in range(steps):
                lng, lat, _ = geod.fwd(a[0], a[1], azimuth, step * length / steps)
                points.append((lng + rng.uniform(-2e-5, 2e-5), lat + rng.uniform(-2e-5, 2e-5)))
        if len(points) >= ROUTE_POINTS:
            break
    start = datetime(2026, 12, 1, 9, tzinfo=UTC).timestamp()
    rows = "".join(
        f'<trkpt lat="{lat:.7f}" lon="{lng:.7f}"><time>'
        f"{datetime.fromtimestamp(start + i, UTC).strftime('%Y-%m-%dT%H:%M:%SZ')}</time></trkpt>"
        for i, (lng, lat) in enumerate(points[:ROUTE_POINTS])
    )
    return (
        '<?xml version="1.0"?><gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1">'
        f"<trk><trkseg>{rows}</trkseg></trk></gpx>"
    ).encode()


def measure(system) -> dict[str, dict]:
    from closures.routes import check_route
    from closures.services import create_closure
    from core.actors import Actor, Via
    from grooming.tracks import parse_upload
    from public.selectors import published_closures
    from trails.models import Trail

    rng = random.Random(44)
    actor = Actor("bench-patrol", Via.API_KEY)
    trails = list(
        Trail.objects.filter(
            trail_system=system, type="Standard", hidden=False, distance__gt=1.0
        ).order_by("order")[: RUNS + 41]
    )
    # A process's first write loads the translations and the projection's tables: a web
    # process has done so long before.
    warm_up = trails.pop()
    create_closure(trail=warm_up, actor=actor, start=0.0, end=warm_up.distance * 500, reason="ice")
    walls, cpus = [], []
    for trail in trails[:RUNS]:
        length = trail.distance * 1000
        started, cpu = time.perf_counter(), time.process_time()
        closure = create_closure(
            trail=trail,
            actor=actor,
            start=length * 0.3,
            end=length * 0.6,
            reason=rng.choice(["avalancheControl", "fallenTree", "washout"]),
        )
        body = published_closures([system.pk])[system.pk]
        walls.append(time.perf_counter() - started)
        cpus.append(time.process_time() - cpu)
        assert closure.pk.encode() in body
    route = _route_gpx(trails[RUNS:], rng)
    checks, check_cpus, found = [], [], None
    for _ in range(CHECKS):
        started, cpu = time.perf_counter(), time.process_time()
        parsed = parse_upload(route)
        found = check_route(system_id=system.pk, lines=parsed.lines, now=timezone.now())
        checks.append(time.perf_counter() - started)
        check_cpus.append(time.process_time() - cpu)
    return {
        "closures: write -> closures.geojson on the 5,102-trail system": {
            "runs": RUNS,
            "p50_s": round(statistics.median(walls), 3),
            "p95_s": round(percentile(walls, 0.95), 3),
            "p95_cpu_s": round(percentile(cpus, 0.95), 3),
            "target_p95_s": WRITE_TARGET_SECONDS,
        },
        "closures: route check of a 10,000-point GPX on the 5,102-trail system": {
            "runs": CHECKS,
            "points": ROUTE_POINTS,
            "p50_s": round(statistics.median(checks), 3),
            "p95_s": round(percentile(checks, 0.95), 3),
            "p95_cpu_s": round(percentile(check_cpus, 0.95), 3),
            "closed_trails_crossed": len(found.closed_trails) if found else 0,
            "target_p95_s": CHECK_TARGET_SECONDS,
        },
    }


def run() -> dict[str, dict]:
    system = import_system(LARGE, points=1000, updates=200, rng=random.Random(5))
    with (
        tempfile.TemporaryDirectory(prefix="bench-closures-") as media,
        override_settings(MEDIA_ROOT=Path(media)),
    ):
        return measure(system)
