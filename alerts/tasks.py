"""Background work of alerts, on a Celery queue of their own (`<CELERY_QUEUE>-alerts`,
config.celery): fanning a system's recorded events out to its followers, sending a key's due
alerts through the channel's fair queue (core.fairqueue: a lane of a system's alerts through
one push service, or e-mail, or SMS), and the sweep that recovers what a lost task, a broker
outage, a coalesced message or the end of quiet hours left due."""

from collections.abc import Collection
from datetime import datetime, timedelta

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from alerts import confirmations, delivery, fanout
from alerts.models import AlertEvent, AlertShare
from core import queueing
from core.fairqueue import FairQueue, Limits, dispatch_at

# An event not fanned out this long after it was recorded is taken as one whose task was lost.
FAN_OUT_LOST_AFTER = timedelta(seconds=5)


def alert_limits() -> Limits:
    return Limits(slots=settings.ALERTS_SLOTS, per_tenant=settings.ALERTS_SLOTS_PER_SYSTEM)


def queue_sending(keys: Collection[str]) -> int:
    """After a commit that made these keys' alerts due: each gets a sending task when a slot
    is free for it and none is queued or running for it. Without a broker (the embedded
    default) nothing runs here, inside a request: `manage.py send_alerts --every 1`, which
    `make run` starts, does it in the background."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return 0
    return fair_queue.dispatch(among=keys)


@shared_task(acks_late=True)
def fan_out_alerts(system_id: str) -> int:
    """The system's recorded events to its followers; each chunk's lanes due now start
    sending once it has committed, while the next chunk is made."""
    now = timezone.now()

    def committed(due: fanout.Due) -> None:
        lanes = [delivery.share_key(system_id, *lane) for lane, at in due.items() if at <= now]
        queue_sending(lanes)

    due = fanout.fan_out(system_id, now, committed)
    if due is None:  # another fan-out holds the system: it looks again once it lets go
        return 0
    dispatch_at(dispatch_alerts, [at for at in due.values() if at > now])
    if fanout.has_events_waiting(system_id):  # from changes whose fan-out found it held
        enqueue_fan_out(system_id)
    return len(due)


@shared_task(acks_late=True)
def send_alerts(key: str, claim: str = "") -> int:
    """The claimed key's due alerts, for one share of a worker; then the slot goes to whoever
    is next. Returns the attempts made."""
    served = fair_queue.serve(key, claim, lambda share: delivery.send_share(key, share))
    if served is None:
        return 0
    share, run = served
    dispatch_at(dispatch_alerts, [run.next_due, share.rest_until])
    return run.attempts


fair_queue = FairQueue(
    channel=delivery.CHANNEL, keys=AlertShare, due=delivery.due_keys, task=send_alerts,
    limits=alert_limits,
)  # fmt: skip


@shared_task(acks_late=True)
def dispatch_alerts() -> int:
    """At a retry's, a coalesced message's or a slow key's rest's end: free slots to whoever
    is due."""
    return fair_queue.dispatch()


@shared_task(acks_late=True)
def sweep_alerts() -> int:
    """Every ALERTS_SWEEP_SECONDS (beat): fan out what a lost task left, free the claims of
    lost tasks and dead senders, and give the free slots to the keys with due alerts;
    followers nobody confirmed in time go too."""
    now = timezone.now()
    confirmations.purge_unconfirmed(now=now)
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return 0
    lost = now - FAN_OUT_LOST_AFTER
    systems = set(
        AlertEvent.objects.filter(fanned_out_on=None, created_on__lt=lost)
        .values_list("trail_system_id", flat=True)
        .distinct()
    )
    for system_id in systems:
        enqueue_fan_out(system_id)
    return len(systems) + fair_queue.sweep()


def enqueue_fan_out(system_id: str) -> bool:
    """Never fails the caller (core.queueing): the sweep queues the work later. Without a
    broker (the embedded default) nothing runs here, inside a request."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return False
    return queueing.queue(fan_out_alerts, system_id)


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
