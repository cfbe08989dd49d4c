"""Background work of the updates app: notification fan-out, the sending through the
notifications' fair queue (core.fairqueue), and the sweeps."""

from celery import shared_task
from django.conf import settings

from core import queueing
from core.fairqueue import QUANTUM, FairQueue, Limits, dispatch_at
from updates import confirmations
from updates.models import Delivery, NotificationShare, Update
from updates.notifications import delivery, recipients, shares


def notify_subscribers_on_commit(update_id: str) -> None:
    """Called by the update service when an update is created with notify true. A broker
    outage is logged, not turned into a failed create: queue_unqueued_fan_outs queues the
    fan-out within seconds of the broker's return."""
    queueing.on_commit(lambda: queue_fan_out(update_id))


def queue_fan_out(update_id: str) -> None:
    """Hand the fan-out to the broker, then record that it was (the outbox's mark)."""
    if queueing.queue(fan_out_update, update_id):
        recipients.mark_fan_out_queued(update_id)


# A share still running at this age is killed, so its claims are dead before their lease ends;
# a share is a quarter of that at most, so that its last chunk ends well before.
CHUNK_TIME_LIMIT = int(settings.DELIVERY_LEASE.total_seconds() / 2)
SHARE_SECONDS = min(QUANTUM, CHUNK_TIME_LIMIT / 4)


def notification_limits() -> Limits:
    return Limits(
        slots=settings.NOTIFICATION_SLOTS, per_tenant=settings.NOTIFICATION_SLOTS_PER_SYSTEM
    )


@shared_task(acks_late=True)
def fan_out_update(update_id: str) -> int:
    """Record the deliveries of an update, a slice of subscribers at a time, each slice's
    channel given to the fair queue as soon as it is recorded (sending begins while the rest
    is recorded). In-process (the embedded default, tasks eager), send them all here.

    Safe to run twice: existing deliveries are kept, and pending ones, an interrupted run's
    too, are sent by the fair queue. Returns the number of deliveries recorded.
    """
    update = Update.objects.filter(pk=update_id, notify=True).first()
    if update is None:
        return 0
    recorded = 0
    eager = settings.CELERY_TASK_ALWAYS_EAGER
    keys = [shares.share_key(update.trail_system_id, c) for c in Delivery.Channel.values]
    for channel, ids in recipients.recorded_slices(update):
        recorded += len(ids)
        if not eager:
            fair_queue.dispatch(among=[shares.share_key(update.trail_system_id, channel)])
    if eager:
        send_in_process(update_id)
    else:
        fair_queue.dispatch(among=keys)  # an interrupted run's pending rows
    return recorded


def send_in_process(update_id: str) -> None:
    """Without a broker (tasks run in-process), every pending delivery of the update at once,
    a transient failure retried at once (as an in-process countdown is), at most
    delivery.MAX_ATTEMPTS times."""
    while chunks := recipients.pending_chunks(update_id):
        for channel, ids in chunks:
            delivery.send_chunk(update_id, channel, ids)


@shared_task(acks_late=True, time_limit=CHUNK_TIME_LIMIT)
def send_notifications(key: str, claim: str = "") -> int:
    """The claimed key's due deliveries (a system's e-mail or SMS), for one share of a
    worker; then the slot goes to whoever is next. Returns the messages sent."""
    served = fair_queue.serve(key, claim, lambda share: shares.send_share(key, share))
    if served is None:
        return 0
    share, run = served
    dispatch_at(dispatch_notifications, [run.next_retry, share.rest_until])
    return run.sent


fair_queue = FairQueue(
    channel=shares.CHANNEL, keys=NotificationShare, due=shares.due_keys,
    task=send_notifications, limits=notification_limits, quantum=SHARE_SECONDS,
)  # fmt: skip


@shared_task(acks_late=True)
def dispatch_notifications() -> int:
    """At a retry's or a slow key's rest's end: free slots to whoever is due."""
    return fair_queue.dispatch()


@shared_task(acks_late=True)
def sweep_notification_shares() -> int:
    """Every NOTIFICATION_QUEUE_SWEEP_SECONDS (beat): free the claims of lost tasks and dead
    senders, and give the free slots to the keys with deliveries due."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return 0
    return fair_queue.sweep()


@shared_task
def sweep_notifications() -> int:
    """Every few minutes: release the claims of dead workers, and queue again the fan-outs
    whose tasks a broker outage or a lost worker left undone."""
    recovered = recipients.recover_stale_claims()
    update_ids = sorted({*recipients.updates_to_sweep(), *recovered})
    for update_id in update_ids:
        fan_out_update.delay(update_id)
    return len(update_ids)


@shared_task
def queue_unqueued_fan_outs() -> int:
    """Every few seconds (beat, NOTIFICATION_QUEUE_SWEEP_SECONDS): queue the fan-outs that a
    broker outage kept from being queued when their update was posted. Beat sends this task
    again as soon as the broker answers, so they go out within a minute of its return."""
    update_ids = recipients.unqueued_fan_outs()
    for update_id in update_ids:
        queue_fan_out(update_id)
    return len(update_ids)


@shared_task
def purge_expired_confirmations() -> int:
    """Daily: forget sign-ups from the public map that nobody confirmed within 24 hours."""
    return confirmations.purge_expired_confirmations()
