"""A real Celery worker process over a real Redis, against the test database."""

import ast
import json
import os
import signal
import subprocess
import sys
import time
import uuid

import pytest
import redis
from django.conf import settings
from django.db import connection

from config.celery import alert_queue, copies_queue, webhook_queue
from config.celery import app as celery_app
from tests.integration.topology import PrivateRedis, drop_broker_connections, procfile_pool
from tests.ports import free_port

WORKER_START_TIMEOUT = 60


def database_url(name: str | None = None) -> str:
    """The test database's URL for another process (or that of database `name` beside it)."""
    db = connection.settings_dict
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return (
        f"postgres://{db['USER']}{password}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}"
        f"/{name or db['NAME']}"
    )


def terminate(process: subprocess.Popen | None) -> None:
    """Stop a child process politely, then forcibly if it does not exit."""
    if process and process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def embedded_default_environment() -> dict[str, str]:
    """A process of the embedded default (no broker: what `make run` starts beside the
    server) on this test's database."""
    environment = {
        key: value
        for key, value in os.environ.items()
        if key not in ("REDIS_URL", "CELERY_BROKER_URL", "DJANGO_SETTINGS_MODULE")
    }
    return environment | {
        "DATABASE_URL": database_url(),
        "SECRET_KEY": settings.SECRET_KEY,
        "ENV_FILE": "",
        "WEBHOOK_ALLOW_PRIVATE_TARGETS": "1",
    }


def worker_environment(media_root) -> dict[str, str]:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": database_url(),
        "REDIS_URL": settings.CELERY_BROKER_URL,
        "CELERY_QUEUE": celery_app.conf.task_default_queue,
        "MEDIA_ROOT": str(media_root),
        "SECRET_KEY": settings.SECRET_KEY,
    }


class Worker:
    """A `celery worker` subprocess; start() waits until it answers a ping. It consumes the
    test's queue (or `queue`), its webhook queue and its copies queue (production runs a
    worker for each)."""

    def __init__(
        self,
        media_root,
        log_path,
        queue: str = "",
        environment: dict | None = None,
        *,
        alerts: bool = False,
    ):
        self.media_root = media_root
        self.log_path = log_path
        self.queue = queue
        self.environment = environment or {}
        # Alerts' worker instead, as the Procfile's `alerts` line runs it.
        self.alerts = alerts
        self.name = f"test-{uuid.uuid4().hex[:8]}@localhost"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        queue = self.queue or celery_app.conf.task_default_queue
        queues = f"{queue},{webhook_queue(queue)},{copies_queue(queue)}"
        pool = ("--pool=prefork", "--concurrency=2")
        if self.alerts:
            queues, pool = alert_queue(queue), procfile_pool("alerts")
        log = open(self.log_path, "ab")  # noqa: SIM115 - closed with the process
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "config",
                "worker",
                *pool,
                "--loglevel=INFO",
                "--without-gossip",
                "--without-mingle",
                "-Q",
                queues,
                "-n",
                self.name,
            ],
            env=worker_environment(self.media_root) | {"CELERY_QUEUE": queue} | self.environment,
            cwd=settings.BASE_DIR,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, so kill() takes the pool too
        )
        deadline = time.monotonic() + WORKER_START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"Celery worker exited; see {self.log_path}")
            if celery_app.control.ping(destination=[self.name], timeout=0.5):
                return
        self.stop()  # never left running behind the error
        raise RuntimeError(f"Celery worker did not answer within {WORKER_START_TIMEOUT}s")

    def kill(self) -> None:
        """SIGKILL to the worker and its pool processes, as an out-of-memory kill or a lost
        machine would (a pool process outliving its parent would finish its task)."""
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)

    def stop(self) -> None:
        terminate(self.process)

    def idle(self) -> bool:
        """Nothing waits in its queues, and it runs, holds and schedules no task."""
        with celery_app.connection_for_read() as broker_connection:
            channel = broker_connection.default_channel
            for queue in (self.queue, webhook_queue(self.queue), copies_queue(self.queue)):
                if channel.client.llen(queue):
                    return False
        inspect = celery_app.control.inspect(destination=[self.name], timeout=2)
        for tasks in (inspect.active(), inspect.reserved(), inspect.scheduled()):
            if tasks is None or any(tasks.values()):
                return False
        return True


@pytest.fixture
def broker(settings):
    """Switch the test process from in-process tasks to the real broker on a fresh queue.
    Celery reads its configuration from the Django settings (CELERY_*), so they change here."""
    queue = f"test-{uuid.uuid4().hex[:8]}"
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.CELERY_TASK_DEFAULT_QUEUE = queue
    return queue


@pytest.fixture
def tasks_in(broker):
    """tasks_in(queue) gives a reader of the tasks waiting in that queue of the test's broker
    (nobody consumes them): reader(task) -> [args of each such task], oldest first. The
    queues are emptied when the test ends."""
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    queues: list[str] = []

    def reader_of(queue: str):
        queues.append(queue)

        def waiting(task: str) -> list[tuple]:
            messages = [json.loads(raw) for raw in client.lrange(queue, 0, -1)]
            return [
                ast.literal_eval(message["headers"]["argsrepr"])
                for message in reversed(messages)  # kombu pushes on the left: oldest last
                if message["headers"]["task"] == task
            ]

        return waiting

    yield reader_of
    if queues:
        client.delete(*queues)


@pytest.fixture(scope="session")
def shared_worker(django_db_setup, django_db_blocker, tmp_path_factory):
    """One worker process for every test that needs a running one (starting and stopping a
    worker takes seconds), on a queue of its own and with media of its own. It sends email
    and SMS to memory; its Delivery rows tell the result."""
    folder = tmp_path_factory.mktemp("shared-worker")
    worker = Worker(
        folder / "media",
        folder / "worker.log",
        queue=f"test-shared-{uuid.uuid4().hex[:8]}",
        environment={
            "EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend",
            "SMS_BACKEND": "updates.sms.locmem.SmsBackend",
        },
    )
    with django_db_blocker.unblock():
        worker.start()
    yield worker
    worker.stop()


@pytest.fixture
def celery_worker(shared_worker, broker, transactional_db, settings):
    """The running worker process, consuming what this test queues: the test's tasks go to
    its queue and its files to its media. After the test, once it is idle (a task of one
    test never runs in the next, nor against the emptied database)."""
    settings.CELERY_TASK_DEFAULT_QUEUE = shared_worker.queue
    settings.MEDIA_ROOT = shared_worker.media_root
    yield shared_worker
    wait_for(shared_worker.idle, timeout=60, interval=0.2)


@pytest.fixture
def start_worker(transactional_db, settings, tmp_path):
    """Start a worker process (more than one in turn, say after killing one); each is
    stopped after the test. The broker is the test's (the `broker` fixture, or another);
    `environment` adds to the worker's (settings of its own)."""
    workers: list[Worker] = []

    def start(environment: dict[str, str] | None = None) -> Worker:
        worker = Worker(
            settings.MEDIA_ROOT, tmp_path / f"worker-{len(workers)}.log", environment=environment
        )
        workers.append(worker)
        worker.start()
        return worker

    yield start
    for worker in workers:
        worker.stop()


def wait_for(predicate, timeout: float = 20.0, interval: float = 0.05):
    """Poll until predicate() is truthy; returns its value or fails the test."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    pytest.fail(f"condition not met within {timeout}s")


@pytest.fixture
def private_broker(broker, settings):
    """A redis-server of this test's own as the broker of this process and of the processes
    it starts: stopping it is a broker outage that leaves the shared Redis alone."""
    redis = PrivateRedis(free_port())
    redis.start()
    settings.CELERY_BROKER_URL = redis.url
    drop_broker_connections()
    yield redis
    drop_broker_connections()
    redis.stop()
