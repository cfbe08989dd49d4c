"""The round trip: two instances of the service on two ports, each on its own database; the
second imports a system from the first's legacy interface, and then every legacy document and
the published file of both are equal, apart from addresses and timestamps. The export of the
copy equals the export of the original too."""

import json
import os
import subprocess
import sys
import time
from datetime import timedelta

import psycopg
import pytest
import requests
from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from core.compiles import request_compile
from demo.loader import DEMO_SYSTEM_ID, load_demo
from tests.integration.conftest import database_url, terminate
from tests.ports import free_port
from trails.models import Point, Trail, TrailSystem
from updates.models import Update

# The two instances' ports (this branch's block of ports).
START_TIMEOUT = 60
TIMESTAMP_KEYS = {"createdOn", "updatedOn"}
ADDRESS_KEYS = {"geoJsonUrl"}
# Each instance collects its own from the weather service, hourly; an import does not move it.
COLLECTED_KEYS = {"weather"}


def environment(database: str, media_root, port: int) -> dict[str, str]:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": database_url(database),
        "MEDIA_ROOT": str(media_root),
        "PUBLIC_BASE_URL": f"http://127.0.0.1:{port}",
        "SECRET_KEY": settings.SECRET_KEY,
        "LEGACY_RECHECK_SECONDS": "0",
        "REDIS_URL": "",
        "CELERY_BROKER_URL": "",
    }


def manage(env: dict, *args: str) -> subprocess.CompletedProcess:
    result = subprocess.run([sys.executable, "manage.py", *args], cwd=settings.BASE_DIR, env=env,
                            capture_output=True, text=True, timeout=300)  # fmt: skip
    assert result.returncode == 0, result.stderr
    return result


class Instance:
    """`gunicorn config.wsgi` on one port, as production runs the web process."""

    def __init__(self, env: dict, port: int, log_path):
        self.base = f"http://127.0.0.1:{port}"
        self.log_path = log_path
        self.log = open(log_path, "ab")  # noqa: SIM115 - closed in stop()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "config.wsgi", "-b", f"127.0.0.1:{port}", "-w", "1",
             "--no-control-socket"],
            cwd=settings.BASE_DIR, env=env, stdout=self.log, stderr=subprocess.STDOUT,
        )  # fmt: skip

    def wait_until_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            assert self.process.poll() is None, f"the service exited; see {self.log_path}"
            try:
                if requests.get(f"{self.base}/api/v1/", timeout=2).status_code == 200:
                    return
            except requests.RequestException:  # not listening yet, or still loading
                time.sleep(0.2)
        pytest.fail(f"{self.base} did not start within {START_TIMEOUT}s; see {self.log_path}")

    def legacy(self, path: str):
        response = requests.get(f"{self.base}/legacy/{path}", timeout=10)
        assert response.status_code == 200, path
        return response.json()

    def published(self, system_id: str) -> dict:
        return requests.get(self.legacy(f"ts/{system_id}")["geoJsonUrl"], timeout=10).json()

    def stop(self) -> None:
        terminate(self.process)
        self.log.close()


@pytest.fixture
def start_instance(tmp_path):
    """Starts an instance and stops it after the test, whatever happens."""
    started: list[Instance] = []

    def start(env: dict, port: int) -> Instance:
        instance = Instance(env, port, tmp_path / f"instance-{port}.log")
        started.append(instance)
        instance.wait_until_ready()
        return instance

    yield start
    for instance in started:
        instance.stop()


@pytest.fixture
def second_database():
    """A second, migrated database beside the test database, dropped afterwards."""
    name = f"{connection.settings_dict['NAME']}_b"
    admin = {k: v for k, v in connection.get_connection_params().items() if k != "dbname"}
    with psycopg.connect(dbname="postgres", autocommit=True, **admin) as server:
        server.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        server.execute(f'CREATE DATABASE "{name}"')
    yield name
    with psycopg.connect(dbname="postgres", autocommit=True, **admin) as server:
        server.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def without(value, keys: set[str]):
    """A copy of a JSON value without the given keys at any depth."""
    if isinstance(value, dict):
        return {k: without(v, keys) for k, v in value.items() if k not in keys}
    if isinstance(value, list):
        return [without(item, keys) for item in value]
    return value


def comparable(value):
    return without(value, TIMESTAMP_KEYS | ADDRESS_KEYS | COLLECTED_KEYS)


def six_decimals(geometry: dict) -> dict:
    def rounded(coordinates: list) -> list:
        if isinstance(coordinates[0], list):
            return [rounded(part) for part in coordinates]
        return [round(number, 6) for number in coordinates]

    return {**geometry, "coordinates": rounded(geometry["coordinates"])}


def enrich(system: TrailSystem) -> None:
    """What the demo lacks: elevations, a multi-line trail, a trashed trail, a web-cam point
    with a description, related systems, hidden activities, a notice on trails."""
    trails = list(system.trails.order_by("order"))
    # The legacy interface carries coordinates to 6 decimals (0.1 m): the source's are put
    # there first, so what the receiving instance stores and measures is the sender's.
    for trail in trails:
        trail.apply_geometry(six_decimals(trail.geometry))
        trail.save()
    for point in Point.objects.filter(trail_system=system):
        Point.objects.filter(pk=point.pk).update(lat=round(point.lat, 6), lng=round(point.lng, 6))
    if system.lat is not None:
        TrailSystem.objects.filter(pk=system.pk).update(
            lat=round(system.lat, 6), lng=round(system.lng, 6)
        )
    Trail.objects.filter(pk=trails[0].pk).update(elevations=[1500.0 + i for i in range(50)])
    multi = trails[1]
    parts = [multi.geometry["coordinates"], [[-113.95, 45.69], [-113.949, 45.691]]]
    multi.apply_geometry({"type": "MultiLineString", "coordinates": parts})
    multi.save()
    Trail.objects.filter(pk=trails[2].pk).update(trashed_on=timezone.now())
    Point.objects.filter(trail_system=system, marker_class="web-cam").update(
        description="Looks at the summit."
    )
    TrailSystem.objects.filter(pk=system.pk).update(
        related_trail_systems=[{"tsId": "other", "name": "Other"}],
        hidden_activities=["hiking"],
        icon_path="icons/lost-trail.png",
    )
    notice = Update.objects.create(
        trail_system=system, type="notice", description="Bridge out.", severity="danger",
        expiration_date=timezone.now() + timedelta(days=3),
    )  # fmt: skip
    notice.trails.set(trails[3:5])
    Update.objects.create(
        trail_system=system, type="notice", description="Expired.",
        expiration_date=timezone.now() - timedelta(hours=1),
    )  # fmt: skip


@pytest.mark.slow
@pytest.mark.integration
def test_a_system_moves_between_two_instances_through_the_legacy_interface(
    transactional_db, second_database, start_instance, tmp_path
):
    system, _ = load_demo()
    enrich(system)
    with transaction.atomic():
        request_compile(system, "round-trip test")  # the compile runs in this process
    first_port, second_port = free_port(), free_port()
    first_env = environment(connection.settings_dict["NAME"], settings.MEDIA_ROOT, first_port)
    second_env = environment(second_database, tmp_path / "media-b", second_port)
    manage(second_env, "migrate", "--no-input", "-v", "0")

    first = start_instance(first_env, first_port)
    source = f"{first.base}/legacy"
    imported = manage(second_env, "import_trail_system", "--from-legacy", source,
                      DEMO_SYSTEM_ID, "--owner", "uid-new-owner")  # fmt: skip
    assert json.loads(imported.stdout.strip().splitlines()[-1]) == {"id": DEMO_SYSTEM_ID}
    second = start_instance(second_env, second_port)

    for path in (f"ts/{DEMO_SYSTEM_ID}", f"trails/{DEMO_SYSTEM_ID}"):
        assert comparable(second.legacy(path)) == comparable(first.legacy(path)), path
    trails = first.legacy(f"trails/{DEMO_SYSTEM_ID}")
    for trail in trails[:5]:
        path = f"trail/{trail['id']}"
        assert comparable(second.legacy(path)) == comparable(first.legacy(path)), path
    published = first.published(DEMO_SYSTEM_ID)
    points = [f["properties"]["pointId"] for f in published["features"]
              if "pointId" in f["properties"]]  # fmt: skip
    for point_id in points:
        path = f"point/{point_id}"
        assert comparable(second.legacy(path)) == comparable(first.legacy(path)), path
    assert comparable(second.published(DEMO_SYSTEM_ID)) == comparable(published)
    # What the comparison covers: the enrichments came across.
    assert len(trails) == 108 and len(points) == 7
    assert trails[0]["elevations"]
    assert first.legacy(f"ts/{DEMO_SYSTEM_ID}")["relatedTrailSystems"]

    exported_first = json.loads(manage(first_env, "export_trail_system", DEMO_SYSTEM_ID).stdout)
    exported_second = json.loads(manage(second_env, "export_trail_system", DEMO_SYSTEM_ID).stdout)
    assert exported_second == exported_first
