"""Background work of the updates app: notification fan-out, chunks and sweep."""

from celery import group, shared_task
from django.conf import settings

from core import queueing
from updates import confirmations
from updates.models import Update
from updates.notifications import delivery, recipients


def notify_subscribers_on_commit(update_id: str) -> None:
    """Called by the update service when an update is created with notify true. A broker
    outage is logged, not turned into a failed create: queue_unqueued_fan_outs queues the
    fan-out within seconds of the broker's return."""
    queueing.on_commit(lambda: queue_fan_out(update_id))


def queue_fan_out(update_id: str) -> None:
    """Hand the fan-out to the broker, then record that it was (the outbox's mark)."""
    if queueing.queue(fan_out_update, update_id):
        recipients.mark_fan_out_queued(update_id)


@shared_task(acks_late=True)
def fan_out_update(update_id: str) -> int:
    """Record the deliveries of an update and send them in parallel chunks, each slice of
    subscribers queued as soon as it is recorded (the other worker processes start sending
    while the rest is recorded).

    Safe to run twice: existing deliveries are kept and only pending ones are queued.
    Returns the number of chunks queued.
    """
    update = Update.objects.filter(pk=update_id, notify=True).first()
    if update is None:
        return 0
    size, queued = recipients.CHUNK_SIZE, set()
    chunks = 0
    for channel, ids in recipients.recorded_slices(update):
        chunks += _queue_chunks(
            update_id, [(channel, ids[i : i + size]) for i in range(0, len(ids), size)]
        )
        queued.update(ids)
    # Rows an earlier, interrupted run recorded and left pending.
    left = [
        (channel, [pk for pk in ids if pk not in queued])
        for channel, ids in recipients.pending_chunks(update_id)
    ]
    return chunks + _queue_chunks(update_id, [(channel, ids) for channel, ids in left if ids])


def _queue_chunks(update_id: str, chunks: list[tuple[str, list[int]]]) -> int:
    if chunks:
        group(send_notification_chunk.s(update_id, channel, ids) for channel, ids in chunks)()
    return len(chunks)


# A chunk still running at this age is killed, so its claims are dead before their lease ends.
CHUNK_TIME_LIMIT = int(settings.DELIVERY_LEASE.total_seconds() / 2)


@shared_task(acks_late=True, time_limit=CHUNK_TIME_LIMIT)
def send_notification_chunk(update_id: str, channel: str, delivery_ids: list[int]) -> int:
    """Send one chunk; transient failures are queued again after a growing delay."""
    retry_ids, delay = delivery.send_chunk(update_id, channel, delivery_ids)
    if retry_ids:
        send_notification_chunk.apply_async((update_id, channel, retry_ids), countdown=delay)
    return len(delivery_ids) - len(retry_ids)


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
