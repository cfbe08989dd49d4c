"""Sending an endpoint's due deliveries, at least once each.

One sender per endpoint at a time, by a PostgreSQL session lock: it sends the due deliveries
in order, a batch at a time over one kept-alive connection, recording each attempt before the
next send, and looks again until none is due. The lock dies with its session, so a worker
killed mid-send frees the endpoint at once; the delivery it was sending is still pending and
is sent again under the same webhook-id (the receiver may see it twice; at least once is the
promise, and webhook-id is how receivers tell).

A delivery that fails (no answer within 5 s, or any answer but 2xx) is retried after
WEBHOOK_RETRY_SECONDS (5 s), then 3 times longer each time, at most 2 hours apart, until 24
hours after its event; a last attempt is made at that time. When an endpoint gets no answer
at all, its other due deliveries wait for that retry rather than time out one by one. An
endpoint that has failed for 24 hours is disabled, its pending deliveries failed, and the
system's Administrators are e-mailed.
"""

import hashlib
import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.utils import timezone

from webhooks import notices
from webhooks.models import WebhookAttempt, WebhookDelivery, WebhookEndpoint
from webhooks.sending import Answer, Sender

logger = logging.getLogger(__name__)

RETRY_FACTOR = 3
RETRY_MAX = timedelta(hours=2)
# An endpoint failing this long is disabled.
FAILING_LIMIT = timedelta(hours=24)
# A rotated secret keeps signing, beside the new one, this long.
ROTATION_OVERLAP = timedelta(hours=24)
BATCH_SIZE = 50
# One run's share of a worker; then it queues itself again behind the other endpoints.
RUN_SECONDS = 30.0

PENDING = WebhookDelivery.State.PENDING


def retry_delay(attempts: int) -> timedelta:
    """The wait after the `attempts`-th failed attempt: 5 s, 15 s, 45 s, ... at most 2 h."""
    seconds = settings.WEBHOOK_RETRY_SECONDS * RETRY_FACTOR ** (attempts - 1)
    return min(timedelta(seconds=seconds), RETRY_MAX)


def signing_secrets(endpoint: WebhookEndpoint, now: datetime) -> list[str]:
    secrets = [endpoint.secret]
    until = endpoint.previous_secret_until
    if endpoint.previous_secret and until and until > now:
        secrets.append(endpoint.previous_secret)
    return secrets


@contextmanager
def endpoint_lock(endpoint_id: str) -> Iterator[bool]:
    """The endpoint's sending lock for this database session, or False when another sender
    holds it. SQLite (embedded default, tasks in-process, one at a time) needs none."""
    if connection.vendor != "postgresql":
        yield True
        return
    digest = hashlib.blake2b(f"webhooks:{endpoint_id}".encode(), digest_size=8).digest()
    key = int.from_bytes(digest, "big", signed=True)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [key])
        held = cursor.fetchone()[0]
    try:
        yield held
    finally:
        if held:
            try:
                with connection.cursor() as cursor:
                    cursor.execute("SELECT pg_advisory_unlock(%s)", [key])
            except DatabaseError:
                connection.close()  # the lock goes with the session


def due(endpoint_id: str, now: datetime):
    return WebhookDelivery.objects.filter(
        endpoint_id=endpoint_id, state=PENDING, next_attempt_on__lte=now
    )


@dataclass
class Run:
    """What one run did: attempts made, whether it found the endpoint busy, whether due
    deliveries remain (it stopped at its time share, or they arrived as it ended), and the
    earliest retry it scheduled."""

    attempts: int = 0
    busy: bool = False
    more_due: bool = False
    next_retry: datetime | None = None

    def retry_at(self, moment: datetime | None) -> None:
        if moment is not None and (self.next_retry is None or moment < self.next_retry):
            self.next_retry = moment


def send_due(endpoint_id: str) -> Run:
    """Send the endpoint's due deliveries, until none is due or the run's time is up."""
    run = Run()
    started = time.monotonic()
    with endpoint_lock(endpoint_id) as held:
        if not held:
            # The holder looks for due deliveries again after releasing the lock.
            run.busy = True
            return run
        while time.monotonic() - started < RUN_SECONDS:
            if not _send_batch(endpoint_id, run):
                break
        else:
            run.more_due = True
    run.more_due = run.more_due or due(endpoint_id, timezone.now()).exists()
    return run


def _send_batch(endpoint_id: str, run: Run) -> bool:
    """One batch of due deliveries; False when there was nothing more to send."""
    now = timezone.now()
    endpoint = WebhookEndpoint.objects.filter(pk=endpoint_id).first()
    if endpoint is None:
        return False
    batch = list(
        due(endpoint_id, now)
        .select_related("message")
        .order_by("next_attempt_on", "id")[:BATCH_SIZE]
    )
    if not batch:
        return False
    sender = Sender(endpoint.url, signing_secrets(endpoint, now))
    was_active = endpoint.active
    try:
        for delivery in batch:
            answer = sender.post(delivery.message_id, delivery.message.payload)
            run.attempts += 1
            try:
                retry = record(endpoint, delivery, answer, timezone.now())
            except IntegrityError:
                return False  # the endpoint was deleted meanwhile, its deliveries with it
            run.retry_at(retry)
            if was_active and not endpoint.active:
                return False  # disabled by this failure
            if retry is not None and answer.unreachable:
                _defer_others(endpoint, delivery, retry)
                return False
    finally:
        sender.close()
    return True


def _defer_others(endpoint: WebhookEndpoint, failed: WebhookDelivery, retry: datetime) -> None:
    """No answer from the endpoint: its other due deliveries wait for the retry too, rather
    than each hold a worker for the timeout now."""
    due(endpoint.pk, timezone.now()).exclude(pk=failed.pk).update(next_attempt_on=retry)


def record(
    endpoint: WebhookEndpoint, delivery: WebhookDelivery, answer: Answer, now: datetime
) -> datetime | None:
    """Store one attempt and its consequences in one transaction; returns when the
    delivery is to be tried again (None: delivered, or given up)."""
    attempts = delivery.attempts + 1
    retry = None
    if answer.ok:
        state = WebhookDelivery.State.SUCCEEDED
    elif now >= delivery.give_up_on:
        state = WebhookDelivery.State.FAILED
    else:
        state = PENDING
        retry = min(now + retry_delay(attempts), delivery.give_up_on)
    with transaction.atomic():
        _commit_without_waiting_for_the_disk()
        WebhookAttempt.objects.create(
            delivery=delivery,
            at=now,
            response_status=answer.status,
            duration_ms=answer.duration_ms,
            error=answer.error[:500],
            response_body=answer.body,
        )
        WebhookDelivery.objects.filter(pk=delivery.pk, state=PENDING).update(
            state=state,
            attempts=attempts,
            next_attempt_on=retry,
            last_attempt_on=now,
            response_status=answer.status,
            duration_ms=answer.duration_ms,
            error=answer.error[:500],
        )
        _endpoint_health(endpoint, answer.ok, now)
    return retry


def _commit_without_waiting_for_the_disk() -> None:
    """An attempt's record is committed without waiting for the WAL flush (the wait, not the
    work, is most of a delivery's time). A crash of PostgreSQL itself can lose the last
    records: those deliveries are sent again, under their webhook-id, which at least once
    allows; a change's own transaction, and so its events, is never committed this way."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL synchronous_commit TO off")


def _endpoint_health(endpoint: WebhookEndpoint, ok: bool, now: datetime) -> None:
    if ok:
        if endpoint.failing_since is not None:
            endpoint.failing_since = None
            WebhookEndpoint.objects.filter(pk=endpoint.pk).update(failing_since=None)
        return
    if endpoint.failing_since is None:
        endpoint.failing_since = now
        WebhookEndpoint.objects.filter(pk=endpoint.pk).update(failing_since=now)
    elif now - endpoint.failing_since >= FAILING_LIMIT and endpoint.active:
        disable(endpoint, now)


def disable(endpoint: WebhookEndpoint, now: datetime) -> None:
    """24 hours of failures: the endpoint is turned off, its pending deliveries failed, and
    the system's Administrators told once this commits."""
    endpoint.active = False
    endpoint.disabled_on = now
    WebhookEndpoint.objects.filter(pk=endpoint.pk).update(active=False, disabled_on=now)
    WebhookDelivery.objects.filter(endpoint=endpoint, state=PENDING).update(
        state=WebhookDelivery.State.FAILED,
        next_attempt_on=None,
        error="not sent: the webhook was disabled after 24 hours of failures",
    )
    logger.warning("webhook %s disabled after 24 hours of failures", endpoint.pk)
    transaction.on_commit(lambda: notices.tell_disabled(endpoint.pk), robust=True)
