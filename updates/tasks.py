"""Background work of the updates app: notification fan-out, chunks and sweep."""

from celery import group, shared_task
from django.db import transaction

from updates.models import Update
from updates.notifications import delivery, recipients


def notify_subscribers_on_commit(update_id: str) -> None:
    """Called by the update service when an update is created with notify true. A broker
    outage is logged, not turned into a failed create: the sweep queues the fan-out later."""
    transaction.on_commit(lambda: fan_out_update.delay(update_id), robust=True)


@shared_task(acks_late=True)
def fan_out_update(update_id: str) -> int:
    """Record the deliveries of an update and send them in parallel chunks.

    Safe to run twice: existing deliveries are kept and only pending ones are queued.
    Returns the number of chunks queued.
    """
    update = Update.objects.filter(pk=update_id, notify=True).first()
    if update is None:
        return 0
    recipients.record_deliveries(update)
    chunks = recipients.pending_chunks(update_id)
    if chunks:
        group(send_notification_chunk.s(update_id, channel, ids) for channel, ids in chunks)()
    return len(chunks)


@shared_task(acks_late=True)
def send_notification_chunk(update_id: str, channel: str, delivery_ids: list[int]) -> int:
    """Send one chunk; transient failures are queued again after a growing delay."""
    retry_ids, delay = delivery.send_chunk(update_id, channel, delivery_ids)
    if retry_ids:
        send_notification_chunk.apply_async((update_id, channel, retry_ids), countdown=delay)
    return len(delivery_ids) - len(retry_ids)


@shared_task
def sweep_notifications() -> int:
    """Every few minutes: queue again the fan-outs whose tasks a broker outage lost."""
    update_ids = recipients.updates_to_sweep()
    for update_id in update_ids:
        fan_out_update.delay(update_id)
    return len(update_ids)
