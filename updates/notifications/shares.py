"""Subscriber notifications through the notifications' fair queue (core.fairqueue): a *key* is
one system's deliveries on one channel (e-mail or SMS), so one system's large fan-out is sent
a share at a time, in turn with every other system's that has messages due, and never holds
another's behind it. A key's due deliveries go oldest first, a batch at a time (claimed,
sent and recorded as delivery.send_chunk does), for one share of a worker; a batch grows
with how quickly the provider answers, so that a share stays near its quantum. A transient
failure makes its deliveries wait for their retry (`not_before`)."""

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from core.fairqueue import Share, joined_key, joined_keys_due, key_lock, split_key
from updates.models import Delivery
from updates.notifications.delivery import send_chunk
from updates.notifications.recipients import CHUNK_SIZE

# The fair queue's channel, which names the keys' sending locks.
CHANNEL = "notifications"
PENDING = Delivery.State.PENDING


def share_key(system_id: str, channel: str) -> str:
    """The key of a system's deliveries on one channel."""
    return joined_key(system_id, channel)


def _due(now: datetime):
    return Delivery.objects.filter(state=PENDING).filter(
        Q(not_before=None) | Q(not_before__lte=now)
    )


def due_keys(now: datetime, among: Collection[str] | None = None) -> list[tuple[str, str]]:
    """(system, key) of every key (of `among`, when given) with a delivery due now."""
    return joined_keys_due(_due(now), among, "update__trail_system_id", "channel")


@dataclass
class Run:
    """What one share did: messages handed to the provider, and the earliest retry."""

    sent: int = 0
    next_retry: datetime | None = None


def batch_size(share: Share) -> int:
    """As many as the rest of the share has time for at the provider's recent pace, between
    one record group and a chunk."""
    least = settings.NOTIFICATION_RECORD_EVERY
    if not share.units:
        return least
    pace = max(share.seconds / share.units, 0.0001)
    left = max(share.quantum - share.elapsed, 0.0)
    return max(least, min(CHUNK_SIZE, int(left / pace)))


def send_share(key: str, share: Share) -> Run:
    """The key's due deliveries, oldest first, for one share (under the key's lock)."""
    system_id, channel = split_key(key)
    run = Run()
    while share.more():
        batch = list(
            _due(timezone.now())
            .filter(update__trail_system_id=system_id, channel=channel)
            .order_by("pk")
            .values_list("pk", "update_id")[: batch_size(share)]
        )
        if not batch:
            break
        update_id = batch[0][1]
        ids = [pk for pk, update in batch if update == update_id]
        retry_ids, delay = send_chunk(update_id, channel, ids, share)
        run.sent += len(ids) - len(retry_ids)
        if retry_ids:
            retry = timezone.now() + timedelta(seconds=delay)
            Delivery.objects.filter(pk__in=retry_ids, state=PENDING).update(not_before=retry)
            run.next_retry = min(retry, run.next_retry or retry)
    return run


def send_due(key: str) -> Run:
    """A share of the key's due deliveries, unless another runner holds the key."""
    with key_lock(CHANNEL, key) as held:
        return send_share(key, Share()) if held else Run()
