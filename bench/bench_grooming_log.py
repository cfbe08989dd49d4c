"""The grooming log of a season: 150 days, 3 machines, 10 hours a day at a position a second
(16.2 million positions), each session grooming 20 of a 100-trail system's trails, answered as
JSON, CSV and XLSX through GET /api/v1/trail-systems/:id/grooming-log (in this process, the
Django test client: the time is the view's, without a network).

Each session's figures (hours, pauses, distance driven) are computed once from all its 36,000
positions, as when a session ends (grooming.driving; that cost per session is a figure here);
the log then reads one row per pass and per groomed trail, never a position, so the passes
keep a thinned track only (every 60th position) to keep the bench's database small."""

import random
import statistics
import time
import uuid
from datetime import UTC, datetime, timedelta

DAYS = 150
MACHINES = 3
HOURS_A_DAY = 10
TRAILS = 100
TRAILS_A_SESSION = 20
RUNS = 5
TARGET_SECONDS = 2.0
ORIGIN = (-113.95, 45.69)


def _walk(rng: random.Random, geod) -> tuple[list[float], list[float]]:
    """A machine's day: a position a second for 10 hours, 2 m apart, wandering."""
    lng, lat = ORIGIN
    heading = rng.uniform(0, 360)
    lngs, lats = [lng], [lat]
    for _ in range(HOURS_A_DAY * 3600 - 1):
        heading += rng.uniform(-10, 10)
        lng, lat, _ = geod.fwd(lng, lat, heading, 2.0)
        lngs.append(lng)
        lats.append(lat)
    return lngs, lats


def _session(rng: random.Random, walk, start: datetime) -> tuple[list, list]:
    """The day's walk moved by up to a kilometre (each day its own positions), timed."""
    d_lng, d_lat = rng.uniform(-0.01, 0.01), rng.uniform(-0.01, 0.01)
    line = [[lng + d_lng, lat + d_lat] for lng, lat in zip(*walk, strict=True)]
    return [line], [start + timedelta(seconds=n) for n in range(len(line))]


def _season(rng: random.Random):
    from pyproj import Geod

    from apikeys.models import User
    from grooming.driving import driving
    from grooming.models import GroomedTrail, GroomingPass, GroomingSession, Tracker
    from grooming.services import driving_fields
    from trails.models import Trail, TrailSystem

    geod = Geod(ellps="WGS84")
    owner = User.objects.create(uid=f"bench-log-{uuid.uuid4().hex[:6]}")
    system = TrailSystem.objects.create(
        name="Bench Grooming Log", owner=owner, lat=ORIGIN[1], lng=ORIGIN[0]
    )
    trails = []
    for n in range(TRAILS):
        trail = Trail(trail_system=system, name=f"Trail {n}", order=n)
        lng, lat = ORIGIN[0] + n * 0.001, ORIGIN[1]
        trail.apply_geometry({"type": "LineString", "coordinates": [[lng, lat], [lng, lat + 0.01]]})
        trails.append(trail)
    Trail.objects.bulk_create(trails)
    trackers = [
        Tracker.objects.create(
            trail_system=system,
            name=f"Machine {m}",
            condition="groomed",
            prefix=f"b{m}",
            digest=uuid.uuid4().hex,
            created_by=owner.uid,
        )
        for m in range(MACHINES)
    ]
    first_day = datetime(2026, 1, 1, 14, 0, tzinfo=UTC)
    walk = _walk(rng, geod)
    figure_seconds = []
    groomed = []
    for day in range(DAYS):
        for tracker in trackers:
            start = first_day + timedelta(days=day)
            lines, times = _session(rng, walk, start)
            started = time.perf_counter()
            figures = driving_fields(driving(lines, times))
            figure_seconds.append(time.perf_counter() - started)
            grooming_pass = GroomingPass.objects.create(
                trail_system=system,
                groomed_at=times[-1],
                uid=owner.uid,
                condition="groomed",
                tolerance_meters=15,
                track={"type": "MultiLineString", "coordinates": [lines[0][::60]]},
                **figures,
            )
            GroomingSession.objects.create(
                tracker=tracker,
                grooming_pass=grooming_pass,
                started_at=times[0],
                last_position_at=times[-1],
                last_received_on=times[-1],
                last_lng=lines[0][-1][0],
                last_lat=lines[0][-1][1],
                ended_on=times[-1] + timedelta(minutes=15),
            )
            groomed += [
                GroomedTrail(grooming_pass=grooming_pass, trail=trail, coverage=1.0)
                for trail in rng.sample(trails, TRAILS_A_SESSION)
            ]
    GroomedTrail.objects.bulk_create(groomed)
    return system, owner, first_day.date(), statistics.median(figure_seconds)


def run() -> dict[str, dict]:
    from django.test import Client

    from apikeys.tokens import mint_emulator_token

    rng = random.Random(46)
    system, owner, first_day, figure_seconds = _season(rng)
    client = Client(HTTP_AUTHORIZATION=f"Bearer {mint_emulator_token(owner.uid)}")
    url = (
        f"/api/v1/trail-systems/{system.pk}/grooming-log"
        f"?from={first_day}&to={first_day + timedelta(days=DAYS - 1)}"
    )
    timings: dict[str, list[float]] = {"json": [], "csv": [], "xlsx": []}
    for _ in range(RUNS):
        for kind in timings:
            started = time.perf_counter()
            response = client.get(url + ("" if kind == "json" else f"&format={kind}"))
            timings[kind].append(time.perf_counter() - started)
            assert response.status_code == 200, response.content[:300]
    sessions = len(client.get(url).json()["sessions"])
    return {
        "grooming log of a season": {
            "sessions": sessions,
            "positions a session": HOURS_A_DAY * 3600,
            "JSON answer, median of 5 (s)": round(statistics.median(timings["json"]), 3),
            "CSV answer, median of 5 (s)": round(statistics.median(timings["csv"]), 3),
            "XLSX answer, median of 5 (s)": round(statistics.median(timings["xlsx"]), 3),
            "target (s)": TARGET_SECONDS,
            "a session's figures at its end (ms)": round(figure_seconds * 1000, 1),
        }
    }
