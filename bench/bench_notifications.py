"""Notification fan-out: 10,000 subscribers (email and phone) of one system, locmem backends,
a real Celery worker. Measures from the commit that creates the update (what the create
response waits for) to the last delivery recorded."""

import os
import tempfile
import time
from pathlib import Path

from bench.common import real_broker

SUBSCRIBERS = 10_000
UNFINISHED = ("pending", "sending")
NOTICE = "Ridge Loop closed for logging until Friday."
TIMEOUT_SECONDS = 300


def measure_fan_out(system, subscribers: int) -> dict:
    """A notify update on `system`, whose `subscribers` each have an email address and a phone
    number: seconds from its commit to the last delivery recorded, messages sent, and the
    update's id."""
    with real_broker("bench-notifications") as queue:
        return _fan_out(system, subscribers, queue)


def _fan_out(system, subscribers: int, queue: str) -> dict:
    # Django is set up by the runner before this is called.
    from django.conf import settings
    from django.db import transaction
    from django.db.models import Max
    from django.utils import timezone

    from tests.integration.conftest import Worker
    from updates.models import Delivery, Update
    from updates.tasks import notify_subscribers_on_commit

    expected = 2 * subscribers

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
                description=NOTICE,
                severity="warning",
                expiration_date=system.created_on.replace(year=system.created_on.year + 1),
                notify=True,
            )
            notify_subscribers_on_commit(update.pk)
        committed = timezone.now()
        started = time.monotonic()
        deliveries = Delivery.objects.filter(update=update)
        # Cheap polls (the partial indexes of unfinished rows), so that the benchmark takes
        # little from the worker; the figure is the last outcome's own time.
        while not deliveries.exists() or deliveries.filter(state__in=UNFINISHED).exists():
            if time.monotonic() - started > TIMEOUT_SECONDS:
                raise RuntimeError(f"fan-out not done in {TIMEOUT_SECONDS}s; see {log_path}")
            time.sleep(0.5)
        last = deliveries.aggregate(last=Max("sent_on"))["last"]
        elapsed = (last - committed).total_seconds()
        sent = deliveries.filter(state="sent").count()
        if sent != expected:
            raise RuntimeError(f"{sent} of {expected} messages sent; see {log_path}")
    finally:
        worker.stop()
    return {"seconds": round(elapsed, 1), "sent": sent, "update": update.pk}


def run() -> dict[str, dict]:
    from trails.models import TrailSystem
    from updates.models import Subscriber

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
    fan_out = measure_fan_out(system, SUBSCRIBERS)
    return {
        "notification fan-out (10,000 subscribers, email + SMS)": {
            "subscribers": SUBSCRIBERS,
            "messages sent": fan_out["sent"],
            "worker processes": 2,
            "commit to last delivery recorded (s)": fan_out["seconds"],
            "messages per second": round(fan_out["sent"] / fan_out["seconds"]),
            "target (s)": 30,
        }
    }
