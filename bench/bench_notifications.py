"""Notification fan-out: 10,000 subscribers (email and phone) of one system, locmem backends,
a real Celery worker. Measures from the commit that creates the update (what the create
response waits for) to the last delivery recorded."""

import os
import tempfile
import time
import uuid
from pathlib import Path

SUBSCRIBERS = 10_000
TIMEOUT_SECONDS = 300


def run() -> dict[str, dict]:
    # Django is set up by the runner (bench/run.py) before run() is called.
    from django.conf import settings
    from django.db import transaction

    from config.celery import app
    from tests.integration.conftest import Worker
    from trails.models import TrailSystem
    from updates.models import Delivery, Subscriber, Update
    from updates.tasks import notify_subscribers_on_commit

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

    # The integration tests' worker: prefork, 2 processes, on this queue and database.
    os.environ["EMAIL_BACKEND"] = "django.core.mail.backends.locmem.EmailBackend"
    os.environ["SMS_BACKEND"] = "updates.sms.locmem.SmsBackend"
    log_path = Path(tempfile.gettempdir()) / f"{queue}.log"
    worker = Worker(settings.MEDIA_ROOT, log_path)
    worker.start()
    try:
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
        worker.stop()

    return {
        "notification fan-out (10,000 subscribers, email + SMS)": {
            "subscribers": SUBSCRIBERS,
            "messages sent": sent,
            "worker processes": 2,
            "commit to last delivery recorded (s)": round(elapsed, 1),
            "messages per second": round(sent / elapsed),
            "target (s)": 30,
        }
    }
