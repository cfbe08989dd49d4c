"""Grooming: a 10,000-point GPX track posted to a 500-trail system, end to end through
POST /api/v1/trail-systems/:id/grooming-tracks (parse, coverage, the pass and its updates in
one transaction). The compile it queues goes to a broker queue nobody consumes, as in
production, where a worker does it after the response.

The track follows trail after trail, a point a second 3 m apart, with GPS error as receivers
make it: an offset that drifts (each second 0.95 of the last one plus a random step; about
3 m typical), not independent of the last fix. A second figure gives the worst case, an
independent error of up to 5 m on every point, whose zigzags make the buffer costlier.

The CPU time of the request in this process is given beside the wall time: on a machine
shared with other work (the load average is recorded), it is the figure that does not move."""

import itertools
import math
import os
import random
import statistics
import time
import uuid
from datetime import UTC, datetime, timedelta

from bench.common import real_broker

TRAILS = 500
TRACK_POINTS = 10_000
RUNS = 5
TARGET_SECONDS = 1.0
ORIGIN = (-113.95, 45.69)


def _walk(rng: random.Random, geod, start, steps: int, step: float) -> list[list[float]]:
    """A wandering line of `steps` steps of `step` metres, as trails and groomers go."""
    lng, lat = start
    heading = rng.uniform(0, 360)
    line = [[lng, lat]]
    for _ in range(steps):
        heading += rng.uniform(-15, 15)
        lng, lat, _ = geod.fwd(lng, lat, heading, step)
        line.append([lng, lat])
    return line


def _system(rng: random.Random):
    """500 trails of 1 to 2 km (a vertex every 25 m) in a 10 km square."""
    from pyproj import Geod

    from apikeys.models import User
    from trails.models import Trail, TrailSystem

    geod = Geod(ellps="WGS84")
    owner = User.objects.create(uid=f"bench-groomer-{uuid.uuid4().hex[:6]}")
    system = TrailSystem.objects.create(name="Bench Grooming", owner=owner)
    trails = []
    for n in range(TRAILS):
        east, north = rng.uniform(-5000, 5000), rng.uniform(-5000, 5000)
        lng, lat, _ = geod.fwd(
            *ORIGIN, math.degrees(math.atan2(east, north)), math.hypot(east, north)
        )
        trail = Trail(trail_system=system, name=f"Trail {n}", order=n)
        trail.apply_geometry(
            {
                "type": "LineString",
                "coordinates": _walk(rng, geod, (lng, lat), rng.randint(40, 80), 25),
            }
        )
        trails.append(trail)
    Trail.objects.bulk_create(trails)
    return system, trails, geod


def _drifting(rng: random.Random):
    east = north = 0.0

    def error() -> tuple[float, float]:
        nonlocal east, north
        east, north = 0.95 * east + rng.gauss(0, 1), 0.95 * north + rng.gauss(0, 1)
        return east, north

    return error


def _jitter(rng: random.Random):
    def error() -> tuple[float, float]:
        size, angle = rng.uniform(0, 5), rng.uniform(0, 2 * math.pi)
        return size * math.cos(angle), size * math.sin(angle)

    return error


def _track_gpx(geod, trails, error) -> bytes:
    """10,000 points a second apart, 3 m apart, along trail after trail, off by error()."""
    points: list[tuple[float, float]] = []
    for trail in trails:
        line = trail.geometry["coordinates"]
        for (lng0, lat0), (lng1, lat1) in itertools.pairwise(line):
            azimuth, _, distance = geod.inv(lng0, lat0, lng1, lat1)
            for i in range(max(1, round(distance / 3))):
                lng, lat, _ = geod.fwd(lng0, lat0, azimuth, i * 3)
                east, north = error()
                azimuth_error = math.degrees(math.atan2(east, north))
                lng, lat, _ = geod.fwd(lng, lat, azimuth_error, math.hypot(east, north))
                points.append((lng, lat))
                if len(points) == TRACK_POINTS:
                    break
            if len(points) == TRACK_POINTS:
                break
        if len(points) == TRACK_POINTS:
            break
    start = datetime(2026, 1, 15, 5, 0, tzinfo=UTC)
    body = "".join(
        f'<trkpt lat="{lat:.7f}" lon="{lng:.7f}">'
        f"<time>{(start + timedelta(seconds=n)).strftime('%Y-%m-%dT%H:%M:%SZ')}</time></trkpt>"
        for n, (lng, lat) in enumerate(points)
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?><gpx version="1.1" creator="bench" '
        f'xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>{body}</trkseg></trk></gpx>'
    ).encode()


def _measure(client, url: str, data: bytes, trails) -> dict:
    """Median of RUNS posts (each replacing the last one's updates), dry runs, and the
    coverage computation alone."""
    from grooming.coverage import TrailLines, coverage
    from grooming.tracks import parse_gpx

    track = parse_gpx(data)
    trail_lines = [TrailLines(t.pk, [t.geometry["coordinates"]]) for t in trails]
    timings: dict[str, list[float]] = {"request": [], "dry run": [], "coverage": [], "cpu": []}
    for _ in range(RUNS):
        for name, query in (("request", ""), ("dry run", "?dryRun=true")):
            started, cpu_started = time.perf_counter(), time.process_time()
            response = client.generic("POST", url + query, data, content_type="application/gpx+xml")
            timings[name].append(time.perf_counter() - started)
            if name == "request":
                timings["cpu"].append(time.process_time() - cpu_started)
            assert response.status_code in (200, 201), response.content[:300]
        started = time.perf_counter()
        coverage(track.lines, trail_lines, 15)
        timings["coverage"].append(time.perf_counter() - started)
    median = {name: round(statistics.median(values), 3) for name, values in timings.items()}
    return {
        "track bytes": len(data),
        "trails groomed": len(response.json()["trails"]),
        "POST grooming-tracks, median of 5 (s)": median["request"],
        "its CPU time in this process, median (s)": median["cpu"],
        "the same with dryRun (s)": median["dry run"],
        "coverage alone, no parsing or database (s)": median["coverage"],
    }


def run() -> dict[str, dict]:
    from rest_framework.test import APIClient

    from apikeys.tokens import mint_emulator_token

    rng = random.Random(14)
    system, trails, geod = _system(rng)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {mint_emulator_token(system.owner_id)}")
    url = f"/api/v1/trail-systems/{system.pk}/grooming-tracks"
    with real_broker("bench-grooming"):
        drifting = _measure(client, url, _track_gpx(geod, trails, _drifting(rng)), trails)
        jitter = _measure(client, url, _track_gpx(geod, trails, _jitter(rng)), trails)
    load_average = round(os.getloadavg()[0], 1)
    return {
        "grooming: 10,000-point GPX track, 500-trail system": {
            "measured on": datetime.now(UTC).strftime("%Y-%m-%d"),
            "load average (2 CPUs)": load_average,
            **drifting,
            "target (s)": TARGET_SECONDS,
        },
        "grooming: the same, worst case (independent 5 m error on every point)": jitter,
    }
