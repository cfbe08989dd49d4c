"""The legacy hot paths under load, against the production server.

gunicorn (config.wsgi, 2 sync workers, as the Procfile runs it) serves a 500-trail system on
loopback; wrk drives it. The ceiling is a static file holding the same bytes, served by the same
server (Django's media view), measured the same way, so the ratio says how much of the
per-request budget our own work takes.

wrk runs two threads: at 2.3 MB a response, one thread's receiving (kernel time, more per
response than the server's) was the limit of both figures, so the ratio only measured wrk. With
two, the machine's two cores are the limit, shared by wrk and the server, and what the server
spends per request shows in the rate.
"""

import os
import re
import shutil
import statistics
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

from bench.common import ROOT, cpu_seconds

HOST = "127.0.0.1"
PORT = int(os.environ.get("BENCH_LEGACY_PORT", "8140"))
BASE = f"http://{HOST}:{PORT}"
TRAILS = 500
VERTICES = 100  # per trail: a few kilometres of GPS track
WORKERS = 2
DURATION = os.environ.get("BENCH_LEGACY_DURATION", "4s")
ROUNDS = 5  # served and static alternate; medians, so a neighbour's burst skews one round only
CONNECTIONS = 8
THREADS = 2


def _wrk_binary() -> str:
    """wrk from Debian's packages, installed on first use (a fresh machine has none)."""
    if not shutil.which("wrk"):
        subprocess.run(["apt-get", "update", "-qq"], check=True)
        subprocess.run(["apt-get", "install", "-y", "-qq", "wrk"], check=True)
    return shutil.which("wrk") or "wrk"


def _seed() -> str:
    """A system of 500 trails with 3-D geometry, two activities each, half with elevations."""
    # Django is set up by the runner before any seed runs.
    from django.db import connection

    from trails.models import Trail, TrailActivity, TrailSystem

    system = TrailSystem.objects.create(name="Bench Legacy", lat=45.69, lng=-113.95)
    trails = []
    for i in range(TRAILS):
        coordinates = [
            [-113.95 + i * 0.0001 + j * 0.0002, 45.69 + j * 0.0001, 1500.0 + j * 0.5]
            for j in range(VERTICES)
        ]
        trail = Trail(
            trail_system=system,
            name=f"Trail {i}",
            description="Rolling terrain through the larches.",
            status=("Open", "Caution", "Closed", "None")[i % 4],
            order=i,
            categories=["north"],
            elevations=[1500.0 + k for k in range(50)] if i % 2 else None,
        )
        trail.apply_geometry({"type": "LineString", "coordinates": coordinates})
        trails.append(trail)
    Trail.objects.bulk_create(trails)
    TrailActivity.objects.bulk_create(
        TrailActivity(trail=trail, value=value, status="Open", position=position)
        for trail in trails
        for position, value in enumerate(("nordic-classic", "snowshoeing"))
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")  # as autovacuum would have done on a live database
    return system.id


def _start_server(media_root: Path) -> subprocess.Popen:
    env = {**os.environ, "MEDIA_ROOT": str(media_root), "DEBUG": "0", "LOG_LEVEL": "WARNING"}
    server = subprocess.Popen(
        [
            str(ROOT / ".venv/bin/gunicorn"),
            "config.wsgi",
            "--workers",
            str(WORKERS),
            "--bind",
            f"{HOST}:{PORT}",
            # Another gunicorn on this machine (make run) owns the default control socket.
            "--no-control-socket",
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env,
    )
    for _ in range(100):
        try:
            urllib.request.urlopen(f"{BASE}/legacy/trail-systems", timeout=2).read()
            return server
        except OSError:
            time.sleep(0.1)
    server.terminate()
    raise RuntimeError(f"gunicorn did not answer on {BASE}")


def _wrk(wrk: str, duration: str, url: str, headers: tuple[str, ...]) -> str:
    header_args = [arg for header in headers for arg in ("-H", header)]
    command = [wrk, f"-t{THREADS}", f"-c{CONNECTIONS}", f"-d{duration}", *header_args, url]
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout


def _requests_per_second(wrk: str, server: int, url: str, *headers: str) -> tuple[float, float]:
    """Requests per second, and the server's CPU milliseconds per request (its processes'
    user and system time: the server's own work, which other people's load inflates far
    less than the throughput)."""
    before = cpu_seconds([server])
    output = _wrk(wrk, DURATION, url, headers)
    cpu = cpu_seconds([server]) - before
    if "Non-2xx" in output or "Socket errors" in output:
        raise RuntimeError(f"wrk saw errors on {url}:\n{output}")
    requests = int(re.search(r"(\d+) requests in", output).group(1))
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    return rate, 1000 * cpu / max(requests, 1)


def _against_ceiling(
    wrk: str, server: int, media_root: Path, name: str, path: str
) -> dict[str, object]:
    body = urllib.request.urlopen(f"{BASE}{path}").read()
    (media_root / "bench").mkdir(exist_ok=True)
    (media_root / "bench" / f"{name}.json").write_bytes(body)
    static = f"{BASE}/media/bench/{name}.json"
    for url in (f"{BASE}{path}", static):
        _wrk(wrk, "2s", url, ())  # warm-up: connections, worker caches
    rounds = [
        (
            _requests_per_second(wrk, server, f"{BASE}{path}"),
            _requests_per_second(wrk, server, static),
        )
        for _ in range(ROUNDS)
    ]
    served = statistics.median(r[0][0] for r in rounds)
    ceiling = statistics.median(r[1][0] for r in rounds)
    served_cpu = statistics.median(r[0][1] for r in rounds)
    static_cpu = statistics.median(r[1][1] for r in rounds)
    return {
        f"{name} body bytes": len(body),
        f"{name} requests/s": round(served),
        f"{name} static same bytes requests/s (ceiling)": round(ceiling),
        f"{name} share of ceiling (target >= 100%)": f"{served / ceiling:.0%}",
        f"{name} server CPU per request, served / static (ms)": (
            f"{served_cpu:.2f} / {static_cpu:.2f}"
        ),
    }


def _measure(wrk: str, system_id: str) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as media:
        media_root = Path(media)
        server = _start_server(media_root)
        try:
            trails_path = f"/legacy/trails/{system_id}"
            figures = {
                **_against_ceiling(wrk, server.pid, media_root, "trails", trails_path),
                **_against_ceiling(wrk, server.pid, media_root, "ts", f"/legacy/ts/{system_id}"),
            }
            etag = urllib.request.urlopen(f"{BASE}{trails_path}").headers["ETag"]
            not_modified = [
                _requests_per_second(
                    wrk, server.pid, f"{BASE}{trails_path}", f"If-None-Match: {etag}"
                )[0]
                for _ in range(ROUNDS)
            ]
            figures["trails 304 (If-None-Match) requests/s"] = round(
                statistics.median(not_modified)
            )
        finally:
            server.terminate()
            server.wait(timeout=30)
    return figures


def run() -> dict[str, dict]:
    wrk = _wrk_binary()
    system_id = _seed()
    set_up = (
        f"gunicorn {WORKERS} workers, wrk -t{THREADS} -c{CONNECTIONS}, "
        f"median of {ROUNDS} x {DURATION}, loopback, {os.cpu_count()} CPUs"
    )
    return {
        f"Legacy interface ({TRAILS} trails, cached bodies, listening for changes)": {
            "set-up": set_up,
            **_measure(wrk, system_id),
        }
    }
