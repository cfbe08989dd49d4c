"""Who gets an update's notification: one pending Delivery row per (update, subscriber,
channel), recorded before anything is sent, and claimed by one worker at a time, so a retried
or duplicated task never sends a message twice. Also which updates the sweep must queue again,
and the recovery of claims a dead worker left (recover_stale_claims)."""

import logging
from collections import defaultdict
from collections.abc import Iterable, Iterator
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, Q
from django.db.models.functions import Now
from django.utils import timezone

from updates.models import Delivery, Subscriber, Update

logger = logging.getLogger(__name__)

CHUNK_SIZE = 500
# Subscribers recorded per statement by a fan-out, whose chunks are queued before the next.
SLICE_SIZE = 20 * CHUNK_SIZE
# About every SYNC_EVERY outcomes of a chunk, one group's record is committed with a WAL flush,
# the others without (core.commits.lazily_committed), so that a crash of PostgreSQL loses at most
# the records after the last flush.
SYNC_EVERY = 50
# A fan-out still unqueued this long after its update was posted was not queued by the
# process that posted it (a broker outage, or that process died).
FAN_OUT_QUEUE_GRACE = timedelta(seconds=10)


def flushed_every(group_size: int) -> int:
    """Every how many groups of outcomes a group's record waits for the WAL flush."""
    return max(1, SYNC_EVERY // group_size)


def in_doubt(*, restarted: bool) -> int:
    """How many rows of a dead claim, from its lowest id still `sending`, may have gone out
    unrecorded: the group in flight; after a crash of PostgreSQL, every group since the last
    flushed one too."""
    size = settings.NOTIFICATION_RECORD_EVERY
    return flushed_every(size) * size if restarted else size


INTERRUPTED = "interrupted: the worker stopped while sending; not sent again to avoid a duplicate"


def _reachable(channel: str) -> Q:
    if channel == Delivery.Channel.EMAIL:
        return ~Q(email="") & Q(email_failed_on__isnull=True)
    return ~Q(phone="") & Q(phone_failed_on__isnull=True)


def record_deliveries(update: Update) -> int:
    """Create the pending Delivery rows of an update, keeping any that exist already."""
    return sum(len(ids) for _, ids in recorded_slices(update))


def recorded_slices(update: Update, size: int = SLICE_SIZE) -> Iterator[tuple[str, list[int]]]:
    """Create the pending Delivery rows of an update, `size` subscribers at a time, keeping
    any that exist already; yields (channel, ids of the rows created) as each slice is
    committed, so that their sending can begin while the next slices are recorded.

    One INSERT ... SELECT per slice: the database copies thousands of subscribers in a
    fraction of the time building model instances would take.
    """
    table = connection.ops.quote_name(Delivery._meta.db_table)
    for channel in Delivery.Channel.values:
        reachable = Subscriber.objects.filter(
            _reachable(channel), trail_system_id=update.trail_system_id, unsubscribed_on=None
        ).order_by("pk")
        subscriber_ids = list(reachable.values_list("pk", flat=True))
        for start in range(0, len(subscriber_ids), size):
            chosen = reachable.filter(pk__in=subscriber_ids[start : start + size])
            select_sql, select_params = chosen.values_list("id").query.sql_with_params()
            with connection.cursor() as cursor:
                cursor.execute(
                    f"INSERT INTO {table} "
                    "(update_id, subscriber_id, channel, state, attempts, error, created_on) "
                    f"SELECT %s, ids.id, %s, %s, 0, '', %s FROM ({select_sql}) AS ids "
                    # WHERE true: SQLite needs it to read ON CONFLICT after a SELECT.
                    "WHERE true "
                    "ON CONFLICT DO NOTHING RETURNING id",
                    (update.pk, channel, Delivery.State.PENDING, timezone.now(), *select_params),
                )
                yield channel, sorted(row[0] for row in cursor.fetchall())


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
            .order_by("pk")
        )
        sendable = Subscriber.objects.filter(_reachable(channel), unsubscribed_on__isnull=True)
        sendable_ids = set(
            sendable.filter(pk__in={d.subscriber_id for d in candidates}).values_list(
                "pk", flat=True
            )
        )
        claimed = [d for d in candidates if d.subscriber_id in sendable_ids]
        skipped = [d.pk for d in candidates if d.subscriber_id not in sendable_ids]
        # The database's clock, which recover_stale_claims compares with the database's start.
        Delivery.objects.filter(pk__in=[d.pk for d in claimed]).update(
            state=Delivery.State.SENDING, attempts=F("attempts") + 1, claimed_on=Now()
        )
        Delivery.objects.filter(pk__in=skipped).update(state=Delivery.State.SKIPPED)
    for delivery in claimed:
        delivery.attempts += 1
    return claimed


def mark_fan_out_queued(update_id: str) -> None:
    Update.objects.filter(pk=update_id, fan_out_queued_on__isnull=True).update(
        fan_out_queued_on=timezone.now()
    )


def unqueued_fan_outs(now: datetime | None = None) -> list[str]:
    """Notify updates of the last hour whose fan-out was never handed to the broker (and
    never ran): posted more than FAN_OUT_QUEUE_GRACE ago, which leaves the posting process
    time to queue it itself."""
    now = now or timezone.now()
    return list(
        Update.objects.filter(
            notify=True,
            created_on__range=(now - timedelta(hours=1), now - FAN_OUT_QUEUE_GRACE),
            fan_out_queued_on__isnull=True,
            deliveries__isnull=True,
        )
        .order_by("created_on")
        .values_list("pk", flat=True)
    )


def updates_to_sweep(now: datetime | None = None) -> list[str]:
    """Notify updates whose fan-out or chunk tasks seem lost: created in the last hour more
    than NOTIFICATION_SWEEP_AFTER ago with no delivery recorded, or with deliveries never
    attempted that long after they were recorded (within the last day)."""
    now = now or timezone.now()
    stale = now - settings.NOTIFICATION_SWEEP_AFTER
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


def database_started() -> datetime | None:
    """When PostgreSQL last started (after a crash too); None on SQLite."""
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_postmaster_start_time()")
        return cursor.fetchone()[0]


def recover_stale_claims(now: datetime | None = None) -> list[str]:
    """Release the deliveries of claims older than DELIVERY_LEASE; returns their updates.

    A chunk sends its rows one by one in id order and records their outcomes a group at a
    time before the next send, and past the lease the claiming task is dead (its hard time
    limit is shorter). So per claim, the lowest-id rows still `sending`, as many as in_doubt
    says, may have reached the provider: they become failed, never sent twice. The rest were
    never handed over: they go back to pending with their attempt given back
    (docs/developers/architecture.md, "Notifications").
    """
    cutoff = (now or timezone.now()) - settings.DELIVERY_LEASE
    started = database_started()
    with transaction.atomic():
        stale = list(
            Delivery.objects.select_for_update(skip_locked=True)
            .filter(state=Delivery.State.SENDING, claimed_on__lt=cutoff)
            .order_by("pk")
            .values_list("pk", "update_id", "channel", "claimed_on")
        )
        doubtful: dict[tuple, list[int]] = defaultdict(list)
        for pk, update_id, channel, claimed_on in stale:
            rows = doubtful[update_id, channel, claimed_on]
            if len(rows) < in_doubt(restarted=bool(started and claimed_on < started)):
                rows.append(pk)
        interrupted = {pk for rows in doubtful.values() for pk in rows}
        Delivery.objects.filter(pk__in=interrupted).update(
            state=Delivery.State.FAILED, error=INTERRUPTED
        )
        untouched = [row[0] for row in stale if row[0] not in interrupted]
        Delivery.objects.filter(pk__in=untouched).update(
            state=Delivery.State.PENDING, attempts=F("attempts") - 1, claimed_on=None
        )
    if stale:
        logger.warning(
            "Recovered %d stale deliveries: %d interrupted, %d pending again",
            len(stale),
            len(interrupted),
            len(untouched),
        )
    return sorted({row[1] for row in stale})
