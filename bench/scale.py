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
from datetime import UTC, datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from bench.common import BASE_NAME, bench_database_url, setup_django  # noqa: E402

SCALE = float(os.environ.get("SCALE", "1"))
# A database per scale, kept between runs so the measurements can be taken again without the
# build (SCALE_REBUILD=1 builds it again); a build that did not finish leaves no marker.
DATABASE = f"{BASE_NAME}_scale" + ("" if SCALE == 1 else f"_{SCALE:g}".replace(".", "_"))
MARKER = "bench_scale_built"


def built_before() -> bool:
    import psycopg  # only this check needs the driver directly

    try:
        with psycopg.connect(bench_database_url(DATABASE)) as conn:
            row = conn.execute(f"SELECT scale FROM {MARKER}").fetchone()
    except psycopg.Error:  # no database yet, or no marker: a build that did not finish
        return False
    return row is not None and row[0] == SCALE


REUSE = os.environ.get("SCALE_REBUILD") != "1" and built_before()
setup_django(DATABASE, fresh=not REUSE)

import orjson  # noqa: E402 - Django is set up first (the models need it)
from django.contrib import admin  # noqa: E402
from django.db import connection  # noqa: E402
from django.db.models.fields import AutoFieldMixin  # noqa: E402
from django.test import Client  # noqa: E402
from django.urls import reverse  # noqa: E402
from django.utils import timezone  # noqa: E402
from rest_framework.test import APIClient  # noqa: E402

from apikeys.models import ApiKey, User  # noqa: E402
from bench import bench_notifications  # noqa: E402
from bench.bench_publishing import DATA, _line_geometry  # noqa: E402
from publishing.models import CompileRequest  # noqa: E402
from publishing.publisher import build_all_systems_file  # noqa: E402
from publishing.tasks import sweep_pending_compiles  # noqa: E402
from tests.factories import create_api_key  # noqa: E402
from trails import geometry  # noqa: E402
from trails.models import Membership, Point, Trail, TrailActivity, TrailSystem  # noqa: E402
from updates.models import Delivery, Subscriber, Update  # noqa: E402
from updates.tasks import sweep_notifications  # noqa: E402

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
SEARCH = "4242"  # in a few trail names, subscriber addresses and phone numbers
POINTS_PER_SYSTEM = 10
TRASHED_EVERY = 100  # one trail in a hundred is in the trash


def copy_objects(model, objects) -> int:
    """Unsaved model instances into the model's table with one COPY (serial ids left to the
    database)."""
    fields = [f for f in model._meta.concrete_fields if not isinstance(f, AutoFieldMixin)]
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
    """Every table a superAdmin's lists read, at scale, in one transaction per table."""
    started = time.monotonic()
    now = timezone.now()
    managers = [
        User(uid=f"scale-manager-{i:05d}", email=f"manager{i}@example.test", password="!")
        for i in range(SYSTEMS)
    ]
    copy_objects(User, managers)
    systems = [
        TrailSystem(
            name=f"Scale system {i:05d}",
            lat=20 + (i % 100) * 0.5,
            lng=-120 + i // 100,
            owner=managers[i],
        )
        for i in range(SYSTEMS)
    ]
    copy_objects(TrailSystem, systems)
    copy_objects(
        Membership,
        (
            Membership(trail_system=s, user=u, role="Administrator")
            for s, u in zip(systems, managers, strict=True)
        ),
    )
    copy_objects(
        ApiKey,
        (
            ApiKey(
                user=u,
                name="scale",
                prefix=f"k{i:010d}"[:11],
                digest=f"{i:064x}",
                scopes=["read", "write"],
            )
            for i, u in enumerate(managers)
        ),
    )
    lines = real_lines()
    per_system = TRAILS // SYSTEMS
    trail_ids: list[str] = []

    def trails():
        for n in range(TRAILS):
            system = systems[min(n // per_system, SYSTEMS - 1)]
            # Each copy moved to its system's own place, apart from every other system's.
            shape = moved(lines[n % len(lines)], (n // len(lines)) * 0.01, 0.0)
            lat, lng = geometry.first_vertex(shape)
            trail = Trail(trail_system=system, name=f"Trail {n}", order=n % per_system,
                          geometry=shape, distance=1.0, lat=lat, lng=lng, status="Open",
                          trashed_on=now if n % TRASHED_EVERY == 0 else None)  # fmt: skip
            trail_ids.append(trail.pk)
            yield trail

    trail_count = copy_objects(Trail, trails())
    copy_objects(TrailActivity, (TrailActivity(trail_id=pk, value="skiing") for pk in trail_ids))
    trail_ids.clear()
    copy_objects(
        Point,
        (
            Point(trail_system=s, name=f"Lodge {n}", marker_class="lodge", lat=s.lat, lng=s.lng)
            for s in systems
            for n in range(POINTS_PER_SYSTEM)
        ),
    )
    # One past notice per system (a month old), delivered by email to each of its subscribers.
    updates = [
        Update(
            trail_system=s,
            type="notice",
            description="Opening day",
            notify=True,
            expiration_date=now - timedelta(days=1),
            created_on=now - timedelta(days=30),
        )
        for s in systems
    ]
    copy_objects(Update, updates)
    fan_out_system = systems[0]
    delivered: list[tuple[str, int]] = []

    def subscribers():
        for n in range(SUBSCRIBERS):
            index = 0 if n < FAN_OUT else 1 + n % (SYSTEMS - 1)
            subscriber = Subscriber(trail_system=systems[index], email=f"s{n}@example.test",
                                    phone=f"+1514{n:07d}")  # fmt: skip
            delivered.append((subscriber.pk, index))
            yield subscriber

    subscriber_count = copy_objects(Subscriber, subscribers())
    copy_objects(
        Delivery,
        (
            Delivery(
                update=updates[index],
                subscriber_id=pk,
                channel="email",
                state="sent",
                attempts=1,
                created_on=now,
                sent_on=now,
            )
            for pk, index in delivered
        ),
    )
    delivered.clear()
    copy_objects(
        CompileRequest,
        (
            CompileRequest(trail_system=s, reason="scale", started_on=now, done_on=now)
            for s in systems
        ),
    )
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    return {
        "systems": SYSTEMS,
        "trails": trail_count,
        "subscribers": subscriber_count,
        "build (s)": round(time.monotonic() - started, 1),
        "_fan_out_system": fan_out_system,
    }


def mark_built(built: dict) -> None:
    """The marker a later run finds to take the measurements again without the build."""
    with connection.cursor() as cursor:
        cursor.execute(f"CREATE TABLE {MARKER} (scale float8, fan_out_system text, built jsonb)")
        cursor.execute(
            f"INSERT INTO {MARKER} VALUES (%s, %s, %s)",
            [
                SCALE,
                built["_fan_out_system"].pk,
                json.dumps({k: v for k, v in built.items() if not k.startswith("_")}),
            ],
        )


def load_built() -> dict:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT fan_out_system, built FROM {MARKER}")
        fan_out_pk, built = cursor.fetchone()
    if isinstance(built, str):
        built = json.loads(built)
    return {**built, "_fan_out_system": TrailSystem.objects.get(pk=fan_out_pk)}


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


def super_admin() -> User:
    return User.objects.filter(uid="bench-scale").first() or User.objects.create_superuser(
        uid="bench-scale", email="scale@example.org"
    )


def measure_routes(fan_out: TrailSystem, other: TrailSystem) -> dict:
    user = super_admin()
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


def measure_changelists(user: User, fan_out: TrailSystem) -> dict:
    """Every change list of the web app for a superAdmin: the first page, a search when the
    list has one, and the list filtered to one system when it has that filter."""
    client = Client()
    client.force_login(user)
    figures = {}
    for model, model_admin in admin.site._registry.items():
        opts = model._meta
        url = reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")
        pages = {"": url}
        if model_admin.search_fields:
            pages["search"] = f"{url}?q={SEARCH}"
        if "trail_system" in model_admin.list_filter:
            pages["one system"] = f"{url}?trail_system__id__exact={fan_out.pk}"
        for label, page in pages.items():
            queries = []
            with connection.execute_wrapper(counting(queries)):
                status = client.get(page, secure=True).status_code
            seconds, _ = best(lambda page=page: client.get(page, secure=True))
            name = f"web app {opts.app_label}.{opts.model_name} {label}".rstrip()
            figures[f"{name}: status, queries, best ms (target <= 500)"] = (
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


def forget_update(pk: str) -> None:
    """The fan-out's notice and its deliveries out again, so the next run starts the same."""
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {Delivery._meta.db_table} WHERE update_id = %s", [pk])
        cursor.execute(f"DELETE FROM {Update._meta.db_table} WHERE id = %s", [pk])
        # Autovacuum may be off (it is on the shared development server): the planner's
        # statistics are kept as a deployment's would be.
        cursor.execute(f"VACUUM ANALYZE {Delivery._meta.db_table}")


def measure_file() -> dict:
    seconds, body = best(build_all_systems_file)
    return {
        "all-systems file rebuild (s) (target <= 10)": round(seconds, 2),
        "all-systems file size (MB)": round(len(body) / 2**20, 1),
    }


def forget_interrupted_fan_outs() -> None:
    """What an interrupted earlier run left (its notice and deliveries, some pending)."""
    notices = Update.objects.filter(description=bench_notifications.NOTICE)
    for pk in notices.values_list("pk", flat=True):
        forget_update(pk)


def measure_fan_out(fan_out_system: TrailSystem) -> dict:
    fan_out = bench_notifications.measure_fan_out(fan_out_system, FAN_OUT)
    forget_update(fan_out["update"])
    return {
        "fan-out: commit to last delivery (s) (target <= 60)": fan_out["seconds"],
        "fan-out: messages sent": fan_out["sent"],
    }


def main() -> None:
    if REUSE:
        built = load_built()
    else:
        built = build()
        mark_built(built)
    fan_out_system = built.pop("_fan_out_system")
    forget_interrupted_fan_outs()
    other = TrailSystem.objects.exclude(pk=fan_out_system.pk).order_by("name").first()
    sections = {
        "file": measure_file,
        "routes": lambda: measure_routes(fan_out_system, other),
        "webapp": lambda: measure_changelists(super_admin(), fan_out_system),
        "sweeps": measure_sweeps,
        "fan-out": lambda: measure_fan_out(fan_out_system),
    }
    # SCALE_MEASURE=webapp,fan-out measures only those; the file keeps the others' figures.
    chosen = os.environ.get("SCALE_MEASURE", ",".join(sections)).split(",")
    results_path = HERE / "results-scale.json"
    previous = json.loads(results_path.read_text()) if results_path.exists() else {}
    figures = {**previous.get("figures", {}), **built} if previous.get("scale") == SCALE else built
    for name, value in built.items():
        print(f"  {name:<72} {value}", flush=True)
    for section in chosen:
        measured = sections[section]()
        for name, value in measured.items():
            print(f"  {name:<72} {value}", flush=True)
        figures.update(measured)
        results = {"date": datetime.now(UTC).strftime("%Y-%m-%d"), "scale": SCALE}
        results_path.write_text(json.dumps({**results, "figures": figures}, indent=2) + "\n")


if __name__ == "__main__":
    main()
