"""Sending an endpoint's due deliveries, at least once each, in order.

One sender per endpoint at a time (at most one attempt in flight), by a PostgreSQL session
lock: it sends the due deliveries oldest first, a batch at a time over one kept-alive
connection, recording each attempt before the next send, for one share of a worker
(core.fairqueue.Share: 5 s, or a single attempt to an endpoint that answers slowly). The lock
dies with its session, so a worker killed mid-send frees the endpoint at once; the delivery
it was sending is still pending and is sent again under the same webhook-id (the receiver may
see it twice; at least once is the promise, and webhook-id is how receivers tell).

A failed attempt (no complete answer within 5 s, or any answer but 2xx) makes the whole
endpoint back off: nothing more is sent to it until its retry, WEBHOOK_RETRY_SECONDS (5 s)
after the first failure in a row, then 3 times longer each time, at most 2 hours apart, each
wait drawn within 20 % either side (jitter, so endpoints that failed together do not retry
together). At its retry the endpoint's waiting deliveries go in order, the failed one first.

An endpoint whose attempts have all failed for 24 hours, at least 10 in a row, is paused: its
messages stay pending, in order, under their webhook-id, until an Administrator resumes it;
the system's Administrators get one e-mail. A single delivery still refused 24 hours after
its event while other deliveries succeed is marked failed ("send again" sends it).
"""

import logging
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from core import queueing, retries
from core.commits import wait_for_the_disk
from core.fairqueue import Share
from core.locks import session_lock
from webhooks import notices
from webhooks.models import WebhookAttempt, WebhookDelivery, WebhookEndpoint
from webhooks.sending import Answer, Sender

logger = logging.getLogger(__name__)

RETRY_FACTOR = 3
RETRY_MAX = timedelta(hours=2)
# An endpoint failing this long, with at least this many failed attempts in a row, is paused.
PAUSE_AFTER = timedelta(hours=24)
PAUSE_AFTER_FAILURES = 10
# A rotated secret keeps signing, beside the new one, this long.
ROTATION_OVERLAP = timedelta(hours=24)
BATCH_SIZE = 50
# The fair queue's channel (core.fairqueue), which names the endpoints' sending locks.
CHANNEL = "webhooks"

PENDING = WebhookDelivery.State.PENDING


def retry_delay(failures: int) -> timedelta:
    """The wait after the `failures`-th failed attempt in a row: 5 s, 15 s, 45 s, ... at most
    2 h, each within 20 % (core.retries)."""
    first = timedelta(seconds=settings.WEBHOOK_RETRY_SECONDS)
    return retries.retry_delay(failures, first=first, factor=RETRY_FACTOR, longest=RETRY_MAX)


def signing_secrets(endpoint: WebhookEndpoint, now: datetime) -> list[str]:
    secrets = [endpoint.secret]
    until = endpoint.previous_secret_until
    if endpoint.previous_secret and until and until > now:
        secrets.append(endpoint.previous_secret)
    return secrets


def due(endpoint_id: str, now: datetime):
    return WebhookDelivery.objects.filter(
        endpoint_id=endpoint_id, state=PENDING, next_attempt_on__lte=now
    )


def due_endpoints(now: datetime, among: Collection[str] | None = None) -> list[tuple[str, str]]:
    """(system, endpoint) of every endpoint (of `among`, when given) with a delivery whose
    time has come (a paused one has none). One probe of the pending deliveries' index per
    endpoint: a backlog of thousands of deliveries costs no more than one."""
    endpoints = WebhookEndpoint.objects.all()
    if among is not None:
        endpoints = endpoints.filter(pk__in=among)
    is_due = due(OuterRef("pk"), now)
    return list(
        endpoints.filter(Exists(is_due))
        .order_by("trail_system_id", "pk")
        .values_list("trail_system_id", "pk")
    )


@dataclass
class Run:
    """What one run did: attempts made, and the earliest retry it scheduled."""

    attempts: int = 0
    next_retry: datetime | None = None

    def retry_at(self, moment: datetime | None) -> None:
        if moment is not None and (self.next_retry is None or moment < self.next_retry):
            self.next_retry = moment


def send_due(endpoint_id: str) -> Run:
    """Send the endpoint's due deliveries, for one share of a worker, under its lock (the
    fair queue's task takes the same lock: core.fairqueue.key_lock)."""
    with session_lock(f"{CHANNEL}:{endpoint_id}") as held:
        if not held:
            # The holder looks for due deliveries again after each batch.
            return Run()
        return send_share(endpoint_id, Share())


def send_share(endpoint_id: str, share: Share) -> Run:
    """What send_due does once it holds the endpoint's lock (as the fair queue's task does)."""
    run = Run()
    while share.more() and _send_batch(endpoint_id, run, share):
        pass
    return run


def _send_batch(endpoint_id: str, run: Run, share: Share) -> bool:
    """One batch of due deliveries, oldest first; False when there was nothing more to send,
    the share was spent, or a failure made the endpoint back off."""
    now = timezone.now()
    endpoint = WebhookEndpoint.objects.filter(pk=endpoint_id, paused_on=None).first()
    if endpoint is None:
        return False
    batch = list(due(endpoint_id, now).select_related("message").order_by("id")[:BATCH_SIZE])
    if not batch:
        return False
    sender = Sender(endpoint.url, signing_secrets(endpoint, now))
    try:
        for delivery in batch:
            if not share.more():
                return False
            answer = sender.post(delivery.message_id, delivery.message.payload)
            share.spent(answer.duration_ms / 1000)
            run.attempts += 1
            try:
                retry = record(endpoint, delivery, answer, timezone.now())
            except IntegrityError:
                return False  # the endpoint was deleted meanwhile, its deliveries with it
            run.retry_at(retry)
            if endpoint.failures:  # backing off, or paused
                return False
    finally:
        sender.close()
    return True


def record(
    endpoint: WebhookEndpoint, delivery: WebhookDelivery, answer: Answer, now: datetime
) -> datetime | None:
    """Store one attempt and its consequences in one transaction; returns when the endpoint
    is to be tried again (None: delivered, given up, or the endpoint paused)."""
    retry = None
    failures = 0 if answer.ok else endpoint.failures + 1
    failing_since = None if answer.ok else endpoint.failing_since or now
    pausing = (
        not answer.ok and failures >= PAUSE_AFTER_FAILURES and now - failing_since >= PAUSE_AFTER
    )
    if answer.ok:
        state = WebhookDelivery.State.SUCCEEDED
    elif pausing:
        state = PENDING
    elif now >= delivery.give_up_on:
        state = WebhookDelivery.State.FAILED
        failures = 0  # this message's failure, not the endpoint's: the others go on
    else:
        state = PENDING
        retry = min(now + retry_delay(failures), delivery.give_up_on)
    with transaction.atomic():
        # The attempt's record: a crash of PostgreSQL itself may lose it, and the delivery is
        # sent again under its webhook-id, which at least once allows; a change's own
        # transaction, and so its events, is never committed this way.
        wait_for_the_disk(False)
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
            attempts=delivery.attempts + 1,
            next_attempt_on=retry,
            last_attempt_on=now,
            response_status=answer.status,
            duration_ms=answer.duration_ms,
            error=answer.error[:500],
        )
        if endpoint.failures or failures or endpoint.failing_since != failing_since:
            endpoint.failures, endpoint.failing_since = failures, failing_since
            endpoint.backoff_until = retry
            WebhookEndpoint.objects.filter(pk=endpoint.pk).update(
                failures=failures, failing_since=failing_since, backoff_until=retry
            )
        if retry is not None:
            _back_off(endpoint, retry)
        if pausing:
            pause(endpoint, now, answer.error or f"answered {answer.status}")
    return retry


def _back_off(endpoint: WebhookEndpoint, retry: datetime) -> None:
    """The endpoint's other waiting deliveries wait for its retry too, rather than each fail
    on its own now; then they go in order."""
    WebhookDelivery.objects.filter(
        endpoint=endpoint, state=PENDING, next_attempt_on__lt=retry
    ).update(next_attempt_on=retry)


def pause(endpoint: WebhookEndpoint, now: datetime, reason: str) -> None:
    """A long run of failures: sending stops and the messages wait (pending, in order, not
    due) until an Administrator resumes; the system's Administrators are told once this
    commits."""
    endpoint.paused_on, endpoint.pause_reason = now, reason[:500]
    WebhookEndpoint.objects.filter(pk=endpoint.pk).update(
        paused_on=now, pause_reason=reason[:500], backoff_until=None
    )
    WebhookDelivery.objects.filter(endpoint=endpoint, state=PENDING).update(next_attempt_on=None)
    logger.warning(
        "webhook %s paused after %d failed attempts in a row", endpoint.pk, endpoint.failures
    )
    queueing.on_commit(lambda: notices.tell_paused(endpoint.pk))


def send_all_due() -> int:
    """A share of each endpoint's due deliveries, one endpoint after another; returns the
    attempts made. The embedded default's background loop (`manage.py send_webhooks --every
    1`)."""
    return sum(send_due(endpoint_id).attempts for _, endpoint_id in due_endpoints(timezone.now()))
