"""`make bench-scale`: a database 25 times today's largest deployment, and what must stay fast
in it.

Builds 10,000 trail systems, 500,000 trails (the features of the real networks in
../shared/data, copied system after system, each copy moved to its own place) and 1,000,000
subscribers, 100,000 of them on one system, with PostgreSQL's COPY (a bench fixture, not a
write path). SCALE (environment, default 1) shrinks every count for a quick check, e.g.
SCALE=0.01. Then measures: rebuilding the legacy all-systems file; the management list routes
as a superAdmin (queries and best-of-3 time, on the fan-out system and another); the periodic
sweeps when nothing is pending; the fan-out to the 100,000 subscribers of one system, commit to
last delivery, with a worker of 2 processes and the in-memory email and SMS backends. Figures
go to bench/results-scale.json.
"""

import json
import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from bench.common import setup_django  # noqa: E402

setup_django()

import orjson  # noqa: E402 - Django is set up first (the models need it)
from django.db import connection  # noqa: E402
from rest_framework.test import APIClient  # noqa: E402

from apikeys.models import User  # noqa: E402
from bench import bench_notifications  # noqa: E402
from bench.bench_publishing import DATA, _line_geometry  # noqa: E402
from publishing.publisher import build_all_systems_file  # noqa: E402
from publishing.tasks import sweep_pending_compiles  # noqa: E402
from tests.factories import create_api_key  # noqa: E402
from trails import geometry  # noqa: E402
from trails.models import Trail, TrailSystem  # noqa: E402
from updates.models import Subscriber  # noqa: E402
from updates.tasks import sweep_notifications  # noqa: E402

SCALE = float(os.environ.get("SCALE", "1"))
SYSTEMS = max(2, int(10_000 * SCALE))
TRAILS = max(100, int(500_000 * SCALE))
SUBSCRIBERS = max(1_000, int(1_000_000 * SCALE))
FAN_OUT = max(500, int(100_000 * SCALE))
NETWORKS = (
    "osm_ski_network_northeast.geojson",
    "osm_ski_network_west.geojson",
    "osm_ski_network_midwest_southeast.geojson",
)
REPEATS = 3


def copy_objects(model, objects) -> int:
    """Unsaved model instances into the model's table with one COPY."""
    fields = model._meta.concrete_fields
    columns = ", ".join(connection.ops.quote_name(f.column) for f in fields)
    count = 0
    with connection.cursor() as cursor:
        statement = f"COPY {model._meta.db_table} ({columns}) FROM STDIN"
        with cursor.cursor.copy(statement) as copy:
            for obj in objects:
                copy.write_row(
                    [f.get_db_prep_save(f.pre_save(obj, True), connection) for f in fields]
                )
                count += 1
    return count


def real_lines() -> list[dict]:
    lines = []
    for name in NETWORKS:
        for feature in orjson.loads((DATA / name).read_bytes())["features"]:
            try:
                lines.append(geometry.validate(_line_geometry(feature)))
            except geometry.GeometryError:
                continue
    return lines


def moved(shape: dict, dx: float, dy: float) -> dict:
    def move(line):
        return [[min(180.0, max(-180.0, p[0] + dx)), min(89.0, max(-89.0, p[1] + dy)), *p[2:]]
                for p in line]  # fmt: skip

    if shape["type"] == "LineString":
        return {"type": "LineString", "coordinates": move(shape["coordinates"])}
    return {"type": shape["type"], "coordinates": [move(line) for line in shape["coordinates"]]}


def build() -> dict:
    started = time.monotonic()
    systems = [
        TrailSystem(name=f"Scale system {i:05d}", lat=20 + (i % 100) * 0.5, lng=-120 + i // 100)
        for i in range(SYSTEMS)
    ]
    TrailSystem.objects.bulk_create(systems, batch_size=2000)
    lines = real_lines()
    per_system = TRAILS // SYSTEMS

    def trails():
        for n in range(TRAILS):
            system = systems[min(n // per_system, SYSTEMS - 1)]
            # Each copy moved to its system's own place, apart from every other system's.
            shape = moved(lines[n % len(lines)], (n // len(lines)) * 0.01, 0.0)
            lat, lng = geometry.first_vertex(shape)
            yield Trail(trail_system=system, name=f"Trail {n}", order=n % per_system,
                        geometry=shape, distance=1.0, lat=lat, lng=lng, status="Open")  # fmt: skip

    trail_count = copy_objects(Trail, trails())
    fan_out_system = systems[0]

    def subscribers():
        for n in range(SUBSCRIBERS):
            system = fan_out_system if n < FAN_OUT else systems[1 + n % (SYSTEMS - 1)]
            yield Subscriber(trail_system=system, email=f"s{n}@example.test", phone=f"+1514{n:07d}")

    subscriber_count = copy_objects(Subscriber, subscribers())
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return {
        "systems": SYSTEMS,
        "trails": trail_count,
        "subscribers": subscriber_count,
        "build (s)": round(time.monotonic() - started, 1),
        "_fan_out_system": fan_out_system,
    }


def best(function, repeats: int = REPEATS) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeats):
        started = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - started)
    return min(times), result


def counting(queries: list[str]):
    """A database execute wrapper that records every statement (DEBUG or not)."""

    def wrapper(execute, sql, params, many, context):
        queries.append(sql)
        return execute(sql, params, many, context)

    return wrapper


def measure_routes(fan_out: TrailSystem, other: TrailSystem) -> dict:
    user = User.objects.create_superuser(uid="bench-scale", email="scale@example.org")
    _, key = create_api_key(user)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    routes = ["/api/v1/trail-systems?all=true", "/api/v1/trail-systems"]
    for system in (fan_out, other):
        routes += [f"/api/v1/trail-systems/{system.pk}/{what}" for what in ("trails", "points")]
        routes.append(f"/api/v1/trail-systems/{system.pk}/updates")
    figures = {}
    for route in routes:
        queries = []
        with connection.execute_wrapper(counting(queries)):
            status = client.get(route).status_code
        seconds, _ = best(lambda route=route: client.get(route))
        name = route.replace(fan_out.pk, "<fan-out system>").replace(other.pk, "<another>")
        figures[f"{name}: status, queries, best ms (target <= 100)"] = (
            f"{status}, {len(queries)}, {seconds * 1000:.0f}"
        )
    return figures


def measure_sweeps() -> dict:
    figures = {}
    for name, sweep in (
        ("compiles", sweep_pending_compiles),
        ("notifications", sweep_notifications),
    ):
        seconds, found = best(sweep.run, 5)
        figures[f"sweep of pending {name}, nothing pending: found, best ms"] = (
            f"{found}, {seconds * 1000:.1f}"
        )
    return figures


def main() -> None:
    built = build()
    fan_out_system = built.pop("_fan_out_system")
    seconds, body = best(build_all_systems_file)
    figures = {
        **built,
        "all-systems file rebuild (s) (target <= 10)": round(seconds, 2),
        "all-systems file size (MB)": round(len(body) / 2**20, 1),
    }
    other = TrailSystem.objects.exclude(pk=fan_out_system.pk).order_by("name").first()
    figures.update(measure_routes(fan_out_system, other))
    figures.update(measure_sweeps())
    fan_out = bench_notifications.measure_fan_out(fan_out_system, FAN_OUT)
    figures["fan-out: commit to last delivery (s) (target <= 60)"] = fan_out["seconds"]
    figures["fan-out: messages sent"] = fan_out["sent"]
    results = {"date": datetime.now(UTC).strftime("%Y-%m-%d"), "scale": SCALE, "figures": figures}
    for name, value in figures.items():
        print(f"  {name:<72} {value}")
    (HERE / "results-scale.json").write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
