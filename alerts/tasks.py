"""Background work of alerts, on a Celery queue of their own (`<CELERY_QUEUE>-alerts`,
config.celery): fanning a system's recorded events out to its followers, sending a queue's
due alerts, and the sweep that queues what a lost task, a broker outage, a coalesced message
or the end of quiet hours left due."""

from datetime import datetime, timedelta

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from alerts import confirmations, delivery, fanout
from alerts.models import AlertEvent
from core import queueing

# A wait longer than this is left to the sweep (as webhooks.tasks does).
COUNTDOWN_MAX = timedelta(minutes=5)
# An event not fanned out this long after it was recorded is taken as one whose task was lost.
FAN_OUT_LOST_AFTER = timedelta(seconds=5)
BUSY_RETRY_SECONDS = 0.5


@shared_task(acks_late=True)
def fan_out_alerts(system_id: str) -> int:
    due = fanout.fan_out(system_id)
    if due is None:  # another fan-out holds the system: look again once it has committed
        enqueue_fan_out(system_id, countdown=BUSY_RETRY_SECONDS)
        return 0
    now = timezone.now()
    for queue, at in due.items():
        enqueue_sending(queue, countdown=max((at - now).total_seconds(), 0.0))
    return len(due)


@shared_task(acks_late=True)
def send_alerts(queue: str) -> int:
    run = delivery.send_due(queue)
    if run.more_due:
        enqueue_sending(queue)
    elif run.next_due is not None:
        wait = run.next_due - timezone.now()
        if wait <= COUNTDOWN_MAX:
            enqueue_sending(queue, countdown=max(wait.total_seconds(), 0.0))
    return run.attempts


@shared_task(acks_late=True)
def sweep_alerts() -> int:
    """Every ALERTS_SWEEP_SECONDS (beat); followers nobody confirmed in time go too."""
    now = timezone.now()
    confirmations.purge_unconfirmed(now=now)
    systems = set(
        AlertEvent.objects.filter(fanned_out_on=None, created_on__lt=now - FAN_OUT_LOST_AFTER)
        .values_list("trail_system_id", flat=True)
        .distinct()
    )
    for system_id in systems:
        enqueue_fan_out(system_id)
    queues = delivery.queues_with_due_alerts(now)
    for queue in queues:
        enqueue_sending(queue)
    return len(systems) + len(queues)


def _enqueue(task, argument: str, countdown: float = 0.0) -> bool:
    """Never fails the caller (core.queueing): the sweep queues the work later. Without a
    broker (the embedded default) nothing runs here, inside a request: `manage.py
    send_alerts --every 1`, which `make run` starts, does it in the background."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return False
    return queueing.queue(task, argument, countdown=countdown)


def enqueue_fan_out(system_id: str, countdown: float = 0.0) -> bool:
    return _enqueue(fan_out_alerts, system_id, countdown)


def enqueue_sending(queue: str, countdown: float = 0.0) -> bool:
    return _enqueue(send_alerts, queue, countdown)


def run_all_due(now: datetime | None = None) -> int:
    """The embedded default's pass: fan out every recorded event, then send what is due
    (by `now`, else by the clock), and drop followers nobody confirmed in time."""
    confirmations.purge_unconfirmed(now=now)
    systems = set(
        AlertEvent.objects.filter(fanned_out_on=None).values_list("trail_system_id", flat=True)
    )
    for system_id in systems:
        fanout.fan_out(system_id, now)
    return delivery.send_all_due(now)
