"""Shared set-up for benchmarks: a fresh PostgreSQL database of their own, migrated."""

import http.client
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlparse, urlunparse

ROOT = Path(__file__).resolve().parent.parent
_BASE_URL = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/trails")
BASE_NAME = urlparse(_BASE_URL).path.lstrip("/") or "trails"
# A database of its own, beside the one DATABASE_URL names: "<name>_bench".
BENCH_DATABASE = f"{BASE_NAME}_bench"


def bench_database_url(database: str = BENCH_DATABASE) -> str:
    return urlunparse(urlparse(_BASE_URL)._replace(path=f"/{database}"))


def setup_django(database: str = BENCH_DATABASE, *, fresh: bool = True) -> None:
    """Point Django at `database` (recreated first when `fresh`, created when missing),
    migrate. Call once per run."""
    import psycopg  # only the set-up needs the driver directly

    url = bench_database_url(database)
    admin_url = urlunparse(urlparse(url)._replace(path="/postgres"))
    with psycopg.connect(admin_url, autocommit=True) as conn:
        if fresh:
            conn.execute(f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [database]).fetchone()
        if not exists:
            conn.execute(f"CREATE DATABASE {database}")
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("SECRET_KEY", "bench-only-secret-key")
    # Measured with the production settings, never the developer's .env.
    os.environ["ENV_FILE"] = ""
    # Figures only: no line per compile or request from this process or those it starts.
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    sys.path.insert(0, str(ROOT))
    import django  # after DJANGO_SETTINGS_MODULE and sys.path are set just above

    django.setup()
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--no-input", "-v", "0"],
        cwd=ROOT,
        env=os.environ,
        check=True,
    )


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def cpu_seconds(pids: list[int]) -> float:
    """User and system CPU time used so far by these processes and all their descendants
    (gunicorn's and Celery's worker processes): a figure the machine's load does not inflate."""
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # exited meanwhile
        pid = int(stat.parent.name)
        parents[pid] = int(fields[1])
        times[pid] = (int(fields[11]) + int(fields[12])) / tick
    wanted = set(pids)
    while True:
        more = {pid for pid, parent in parents.items() if parent in wanted} - wanted
        if not more:
            break
        wanted |= more
    return sum(times.get(pid, 0.0) for pid in wanted)


@contextmanager
def real_broker(prefix: str) -> Iterator[str]:
    """Tasks this process sends go through Redis (REDIS_URL, default db 15) to a queue of the
    bench's own, which the worker it starts (tests.integration.conftest.Worker) listens to;
    afterwards the queue is deleted and the Celery app configured as before. The app reads
    the Django settings once, so both are switched, whatever ran first in this process."""
    from django.test import override_settings

    from config.celery import alert_queue, app, copies_queue, webhook_queue

    broker_url = os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/15"
    queue = f"{prefix}-{uuid.uuid4().hex[:8]}"
    switched = {"broker_url": broker_url, "task_always_eager": False, "task_default_queue": queue}
    before = {key: app.conf[key] for key in switched}
    with override_settings(
        CELERY_BROKER_URL=broker_url,
        CELERY_TASK_ALWAYS_EAGER=False,
        CELERY_TASK_DEFAULT_QUEUE=queue,
    ):
        app.conf.update(switched)
        try:
            yield queue
        finally:
            with app.connection_for_write() as connection:
                connection.default_channel.queue_delete(queue)
                connection.default_channel.queue_delete(webhook_queue(queue))
                connection.default_channel.queue_delete(copies_queue(queue))
                connection.default_channel.queue_delete(alert_queue(queue))
            app.conf.update(before)


def start_gunicorn(host: str, port: int, workers: int, env: dict[str, str]) -> subprocess.Popen:
    """gunicorn serving config.wsgi with the production settings (DEBUG off, REDIS_URL as the
    bench's) plus `env`, once it answers /healthz."""
    environment = {
        **os.environ,
        "DEBUG": "0",
        "LOG_LEVEL": "WARNING",
        "REDIS_URL": os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/15",
        **env,
    }
    server = subprocess.Popen(
        [
            str(ROOT / ".venv/bin/gunicorn"),
            "config.wsgi",
            *("--workers", str(workers), "--bind", f"{host}:{port}"),
            *("--no-control-socket", "--log-level", "warning"),
        ],
        cwd=ROOT,
        env=environment,
    )
    for _ in range(100):
        try:
            connection = http.client.HTTPConnection(host, port, timeout=2)
            connection.request("GET", "/healthz")
            connection.getresponse().read()
            return server
        except OSError:
            time.sleep(0.1)
    server.terminate()
    raise RuntimeError(f"gunicorn did not answer on {host}:{port}")
