"""Subscriber notification, the sending: one email and one SMS per subscriber for an update
created with notify true, in the trail system's language.

The fan-out records a Delivery row per (update, subscriber, channel) before anything is sent,
then hands chunks of pending rows to parallel Celery tasks. A chunk claims its rows (pending ->
sending) in one short transaction, so a retried or duplicated task never sends a message twice.
Transient provider errors go back to pending and are retried with exponential backoff; a
permanent refusal marks the subscriber's address or number as failed so it is skipped next time.

A chunk sends its rows one by one in id order and records their outcomes a group of
NOTIFICATION_RECORD_EVERY at a time before the next send, so a worker killed mid-chunk leaves
at most that many rows of its claim whose message may have gone out, never sent again
(recipients.recover_stale_claims). Those records are committed without waiting for the disk
(lazily_committed), one in every few excepted: a crash of PostgreSQL itself leaves at most
recipients.in_doubt(restarted=True) rows per claim in doubt.
"""

import contextlib
import logging
import smtplib
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.core import mail
from django.db import connection, transaction
from django.utils import timezone

from core import retries
from core.commits import lazily_committed, wait_for_the_disk
from core.fairqueue import Share
from updates import sms
from updates.models import Delivery, Subscriber, Update
from updates.notifications.recipients import claim, flushed_every
from updates.notifications.rendering import Messages, message_context

logger = logging.getLogger(__name__)

MAX_ATTEMPTS = 5
# The wait before retry n (1-based): 30 s, 2 min, 8 min, 32 min, each within 20 %.
RETRY_FIRST = timedelta(seconds=30)
RETRY_FACTOR = 4
RETRY_MAX = timedelta(hours=2)


@dataclass
class Outcome:
    """What happened to one claimed delivery."""

    delivery: Delivery
    error: str = ""
    permanent: bool = False  # the address or number will never work
    retry: bool = False  # worth another attempt later
    seconds: float = 0.0  # how long the provider took

    @property
    def sent(self) -> bool:
        return not self.error


def _attempt(delivery: Delivery, send: Callable[[], None]) -> Outcome:
    started = time.monotonic()
    outcome = _outcome(delivery, send)
    outcome.seconds = time.monotonic() - started
    return outcome


def _outcome(delivery: Delivery, send: Callable[[], None]) -> Outcome:
    try:
        send()
    except smtplib.SMTPRecipientsRefused as error:
        return Outcome(delivery, f"refused: {error.recipients}", permanent=True)
    except sms.SmsError as error:
        return Outcome(delivery, str(error), permanent=error.permanent, retry=not error.permanent)
    except (smtplib.SMTPException, OSError) as error:
        return Outcome(delivery, f"{type(error).__name__}: {error}", retry=True)
    except Exception as error:  # a bug must not leave the rest of the chunk unsent
        logger.exception("Delivery %s failed", delivery.pk)
        return Outcome(delivery, f"{type(error).__name__}: {error}")
    return Outcome(delivery)


def send_all(backend, build: Callable, deliveries: list[Delivery]) -> Iterator[Outcome]:
    """Send one message per delivery, in order, over one connection of an email or SMS
    backend, yielding each outcome before the next message is sent.

    A connection that cannot be opened, or breaks, is reopened for the next message; the
    messages it fails are recorded for retry like any other transient failure.
    """
    _reopen(backend)
    try:
        for delivery in deliveries:

            def send(d=delivery):
                backend.send_messages([build(d.subscriber)])

            outcome = _attempt(delivery, send)
            if outcome.retry:
                _reopen(backend)
            yield outcome
    finally:
        backend.close()


def _reopen(backend) -> None:
    backend.close()
    with contextlib.suppress(smtplib.SMTPException, OSError):
        backend.open()


def _state_of(outcome: Outcome) -> str:
    if outcome.sent:
        return Delivery.State.SENT
    if outcome.retry and outcome.delivery.attempts < MAX_ATTEMPTS:
        return Delivery.State.PENDING
    return Delivery.State.FAILED


def record_outcomes(outcomes: list[Outcome], channel: str, *, flush: bool) -> list[int]:
    """Store the outcomes of a group of sends, one UPDATE per (state, error), in one
    transaction; returns the ids to retry. With `flush`, its commit waits for the WAL flush,
    and so makes every earlier one durable; the others need not (lazily_committed). The usual
    group, all sent, is one statement in autocommit: no BEGIN and COMMIT round trips."""
    now = timezone.now()
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for outcome in outcomes:
        groups[_state_of(outcome), outcome.error[:2000]].append(outcome.delivery.pk)
    permanent = [o.delivery.subscriber_id for o in outcomes if o.permanent]
    durable = flush and connection.vendor == "postgresql"
    one_statement = len(groups) == 1 and not permanent and not durable
    with contextlib.nullcontext() if one_statement else transaction.atomic():
        if durable:
            wait_for_the_disk(True)
        for (state, error), ids in groups.items():
            sent_on = now if state == Delivery.State.SENT else None
            Delivery.objects.filter(pk__in=ids).update(state=state, error=error, sent_on=sent_on)
        if permanent:
            failed = "email_failed_on" if channel == Delivery.Channel.EMAIL else "phone_failed_on"
            Subscriber.objects.filter(pk__in=permanent).update(**{failed: now})
    return [
        pk for (state, _), ids in groups.items() if state == Delivery.State.PENDING for pk in ids
    ]


def in_groups(outcomes: Iterator[Outcome], size: int) -> Iterator[list[Outcome]]:
    """The outcomes `size` at a time: the next send waits until the group is recorded."""
    group: list[Outcome] = []
    for outcome in outcomes:
        group.append(outcome)
        if len(group) == size:
            yield group
            group = []
    if group:
        yield group


def retry_delay(attempts: int) -> float:
    """Seconds to wait before the next attempt after `attempts` tries (core.retries)."""
    delay = retries.retry_delay(attempts, first=RETRY_FIRST, factor=RETRY_FACTOR, longest=RETRY_MAX)
    return delay.total_seconds()


def send_chunk(
    update_id: str, channel: str, delivery_ids: list[int], share: Share | None = None
) -> tuple[list[int], float]:
    """Send the claimable deliveries among delivery_ids (telling `share`, the fair queue's,
    how long each took).

    Returns the ids to retry and the delay before retrying them. Everything that can fail
    before sending (the update deleted meanwhile, rendering, the backend's settings) happens
    before the rows are claimed, so it leaves them pending rather than claimed and unsent.
    """
    update = Update.objects.select_related("trail_system").filter(pk=update_id).first()
    if update is None:
        return [], 0
    messages = Messages.render(message_context(update))
    if channel == Delivery.Channel.EMAIL:
        backend, build = mail.get_connection(), messages.email_for
    else:
        backend, build = sms.get_connection(), messages.sms_for
    deliveries = claim(delivery_ids, channel)
    if not deliveries:
        return [], 0
    size = settings.NOTIFICATION_RECORD_EVERY
    retry_ids: list[int] = []
    with lazily_committed():
        outcomes = in_groups(send_all(backend, build, deliveries), size)
        for n, group in enumerate(outcomes, start=1):
            flush = n % flushed_every(size) == 0
            retry_ids += record_outcomes(group, channel, flush=flush)
            for outcome in group if share is not None else ():
                share.spent(outcome.seconds)
    if not retry_ids:
        return [], 0
    retrying = set(retry_ids)
    return retry_ids, retry_delay(max(d.attempts for d in deliveries if d.pk in retrying))
