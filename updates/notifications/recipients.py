"""Who gets an update's notification: one pending Delivery row per (update, subscriber,
channel), recorded before anything is sent, and claimed by one worker at a time, so a retried
or duplicated task never sends a message twice. Also which updates the sweep must queue again."""

from collections.abc import Iterable
from datetime import datetime, timedelta

from django.db import connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from updates.models import Delivery, Subscriber, Update

CHUNK_SIZE = 500
# How long a queued fan-out or chunk may wait before the sweep queues it again.
SWEEP_AFTER = timedelta(minutes=10)


def _reachable(channel: str) -> Q:
    if channel == Delivery.Channel.EMAIL:
        return ~Q(email="") & Q(email_failed_on__isnull=True)
    return ~Q(phone="") & Q(phone_failed_on__isnull=True)


def record_deliveries(update: Update) -> int:
    """Create the pending Delivery rows of an update, keeping any that exist already.

    One INSERT ... SELECT per channel: the database copies thousands of subscribers in a
    fraction of the time building model instances would take.
    """
    created = 0
    for channel in Delivery.Channel.values:
        subscribers = (
            Subscriber.objects.filter(
                _reachable(channel),
                trail_system_id=update.trail_system_id,
                unsubscribed_on__isnull=True,
            )
            .order_by()
            .values_list("id", flat=True)
        )
        select_sql, select_params = subscribers.query.sql_with_params()
        table = connection.ops.quote_name(Delivery._meta.db_table)
        with connection.cursor() as cursor:
            cursor.execute(
                f"INSERT INTO {table} "
                "(update_id, subscriber_id, channel, state, attempts, error, created_on) "
                f"SELECT %s, ids.id, %s, %s, 0, '', %s FROM ({select_sql}) AS ids "
                # WHERE true: SQLite needs it to read ON CONFLICT after a SELECT.
                "WHERE true "
                "ON CONFLICT DO NOTHING",
                (update.pk, channel, Delivery.State.PENDING, timezone.now(), *select_params),
            )
            created += cursor.rowcount
    return created


def pending_chunks(update_id: str, size: int = CHUNK_SIZE) -> list[tuple[str, list[int]]]:
    """(channel, delivery ids) batches of the update's pending deliveries."""
    chunks: list[tuple[str, list[int]]] = []
    for channel in Delivery.Channel.values:
        ids = list(
            Delivery.objects.filter(
                update_id=update_id, channel=channel, state=Delivery.State.PENDING
            )
            .order_by("pk")
            .values_list("pk", flat=True)
        )
        chunks.extend((channel, ids[i : i + size]) for i in range(0, len(ids), size))
    return chunks


def claim(delivery_ids: Iterable[int], channel: str) -> list[Delivery]:
    """Take the still-pending rows among delivery_ids for this worker (pending -> sending).

    Rows whose subscriber has since left or whose address failed are marked skipped. Rows
    another worker holds or has already handled are left alone, so duplicates send nothing.
    """
    with transaction.atomic():
        candidates = list(
            Delivery.objects.select_for_update(skip_locked=True, of=("self",))
            .select_related("subscriber")
            .filter(pk__in=list(delivery_ids), state=Delivery.State.PENDING)
        )
        sendable = Subscriber.objects.filter(_reachable(channel), unsubscribed_on__isnull=True)
        sendable_ids = set(
            sendable.filter(pk__in={d.subscriber_id for d in candidates}).values_list(
                "pk", flat=True
            )
        )
        claimed = [d for d in candidates if d.subscriber_id in sendable_ids]
        skipped = [d.pk for d in candidates if d.subscriber_id not in sendable_ids]
        Delivery.objects.filter(pk__in=[d.pk for d in claimed]).update(
            state=Delivery.State.SENDING, attempts=F("attempts") + 1
        )
        Delivery.objects.filter(pk__in=skipped).update(state=Delivery.State.SKIPPED)
    for delivery in claimed:
        delivery.attempts += 1
    return claimed


def updates_to_sweep(now: datetime | None = None) -> list[str]:
    """Notify updates whose fan-out or chunk tasks seem lost: created in the last hour more
    than SWEEP_AFTER ago with no delivery recorded, or with deliveries never attempted
    SWEEP_AFTER after they were recorded (within the last day)."""
    now = now or timezone.now()
    stale = now - SWEEP_AFTER
    never_fanned_out = Update.objects.filter(
        notify=True,
        created_on__range=(now - timedelta(hours=1), stale),
        deliveries__isnull=True,
    ).values_list("pk", flat=True)
    never_attempted = (
        Delivery.objects.filter(
            state=Delivery.State.PENDING,
            attempts=0,
            created_on__range=(now - timedelta(days=1), stale),
        )
        .values_list("update_id", flat=True)
        .distinct()
    )
    return sorted({*never_fanned_out, *never_attempted})
