"""Notification fan-out: 10,000 subscribers (email and phone) of one system, locmem backends,
a real Celery worker. Measures from the commit that creates the update (what the create
response waits for) to the last delivery recorded."""

import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from bench.common import ROOT

SUBSCRIBERS = 10_000
TIMEOUT_SECONDS = 300


def _start_worker(queue: str, log_path: Path, concurrency: int) -> subprocess.Popen:
    from django.conf import settings

    env = {
        **os.environ,
        "REDIS_URL": settings.CELERY_BROKER_URL,
        "CELERY_QUEUE": queue,
        "EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend",
        "SMS_BACKEND": "updates.sms.locmem.SmsBackend",
        "LOG_LEVEL": "WARNING",
    }
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "--pool=prefork",
            f"--concurrency={concurrency}",
            "--loglevel=WARNING",
            "--without-gossip",
            "--without-mingle",
            "-Q",
            queue,
            "-n",
            f"bench-{queue}@localhost",
        ],
        env=env,
        cwd=ROOT,
        stdout=log_path.open("ab"),
        stderr=subprocess.STDOUT,
    )


def _wait_ready(app, name: str, worker: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if worker.poll() is not None:
            raise RuntimeError("bench worker exited")
        if app.control.ping(destination=[name], timeout=0.5):
            return
    raise RuntimeError("bench worker did not start")


def run() -> dict[str, dict]:
    from django.conf import settings
    from django.db import transaction

    from config.celery import app
    from trails.models import TrailSystem
    from updates.models import Delivery, Subscriber, Update
    from updates.notifications import notify_subscribers_on_commit

    settings.CELERY_BROKER_URL = settings.CELERY_BROKER_URL or "redis://127.0.0.1:6379/15"
    queue = f"bench-{uuid.uuid4().hex[:8]}"
    app.conf.update(
        broker_url=settings.CELERY_BROKER_URL, task_always_eager=False, task_default_queue=queue
    )

    system = TrailSystem.objects.create(name="Bench Notifications", language="en")
    Subscriber.objects.bulk_create(
        [
            Subscriber(
                trail_system=system,
                email=f"subscriber{n}@example.test",
                phone=f"+1514{n:07d}",
            )
            for n in range(SUBSCRIBERS)
        ],
        batch_size=2000,
    )
    expected = 2 * SUBSCRIBERS

    concurrency = max(2, os.cpu_count() or 2)
    log_path = Path(tempfile.gettempdir()) / f"{queue}.log"
    worker = _start_worker(queue, log_path, concurrency)
    try:
        _wait_ready(app, f"bench-{queue}@localhost", worker)
        with transaction.atomic():
            update = Update.objects.create(
                trail_system=system,
                type="notice",
                description="Ridge Loop closed for logging until Friday.",
                severity="warning",
                expiration_date=system.created_on.replace(year=system.created_on.year + 1),
                notify=True,
            )
            notify_subscribers_on_commit(update.pk)
        started = time.monotonic()
        deliveries = Delivery.objects.filter(update=update)
        while deliveries.filter(state__in=["sent", "failed"]).count() < expected:
            if time.monotonic() - started > TIMEOUT_SECONDS:
                raise RuntimeError(f"fan-out not done in {TIMEOUT_SECONDS}s; see {log_path}")
            time.sleep(0.1)
        elapsed = time.monotonic() - started
        sent = deliveries.filter(state="sent").count()
    finally:
        worker.terminate()
        worker.wait(timeout=60)

    return {
        "notification fan-out (10,000 subscribers, email + SMS)": {
            "subscribers": SUBSCRIBERS,
            "messages sent": sent,
            "worker processes": concurrency,
            "commit to last delivery recorded (s)": round(elapsed, 1),
            "messages per second": round(sent / elapsed),
            "target (s)": 30,
        }
    }
