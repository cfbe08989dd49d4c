"""Subscriber notification, the sending: one email and one SMS per subscriber for an update
created with notify true, in the trail system's language.

The fan-out records a Delivery row per (update, subscriber, channel) before anything is sent,
then hands chunks of pending rows to parallel Celery tasks. A chunk claims its rows (pending ->
sending) in one short transaction, so a retried or duplicated task never sends a message twice.
Transient provider errors go back to pending and are retried with exponential backoff; a
permanent refusal marks the subscriber's address or number as failed so it is skipped next time.
"""

import contextlib
import logging
import smtplib
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from django.core import mail
from django.utils import timezone

from updates import sms
from updates.models import Delivery, Subscriber, Update
from updates.notifications.recipients import claim
from updates.notifications.rendering import Messages, message_context

logger = logging.getLogger(__name__)

MAX_ATTEMPTS = 5
# Seconds before retry n (1-based): 30 s, 2 min, 8 min, 32 min.
RETRY_BASE_SECONDS = 30
RETRY_FACTOR = 4


@dataclass
class Outcome:
    """What happened to one claimed delivery."""

    delivery: Delivery
    error: str = ""
    permanent: bool = False  # the address or number will never work
    retry: bool = False  # worth another attempt later

    @property
    def sent(self) -> bool:
        return not self.error


def _attempt(delivery: Delivery, send: Callable[[], None]) -> Outcome:
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


def send_all(backend, build: Callable, deliveries: list[Delivery]) -> list[Outcome]:
    """Send one message per delivery over one connection of an email or SMS backend.

    A connection that cannot be opened, or breaks, is reopened for the next message; the
    messages it fails are recorded for retry like any other transient failure.
    """
    outcomes = []
    _reopen(backend)
    try:
        for delivery in deliveries:

            def send(d=delivery):
                backend.send_messages([build(d.subscriber)])

            outcome = _attempt(delivery, send)
            if outcome.retry:
                _reopen(backend)
            outcomes.append(outcome)
    finally:
        backend.close()
    return outcomes


def _reopen(backend) -> None:
    backend.close()
    with contextlib.suppress(smtplib.SMTPException, OSError):
        backend.open()


def record_outcomes(outcomes: list[Outcome], channel: str) -> list[int]:
    """Store each outcome, one UPDATE per (state, error) group; returns the ids to retry."""
    now = timezone.now()
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for outcome in outcomes:
        if outcome.sent:
            state = Delivery.State.SENT
        elif outcome.retry and outcome.delivery.attempts < MAX_ATTEMPTS:
            state = Delivery.State.PENDING
        else:
            state = Delivery.State.FAILED
        groups[state, outcome.error[:2000]].append(outcome.delivery.pk)
    for (state, error), ids in groups.items():
        sent_on = now if state == Delivery.State.SENT else None
        Delivery.objects.filter(pk__in=ids).update(state=state, error=error, sent_on=sent_on)
    failed_field = "email_failed_on" if channel == Delivery.Channel.EMAIL else "phone_failed_on"
    Subscriber.objects.filter(
        pk__in=[o.delivery.subscriber_id for o in outcomes if o.permanent]
    ).update(**{failed_field: now})
    return [
        pk for (state, _), ids in groups.items() if state == Delivery.State.PENDING for pk in ids
    ]


def retry_delay(attempts: int) -> int:
    """Seconds to wait before the next attempt after `attempts` tries."""
    return RETRY_BASE_SECONDS * RETRY_FACTOR ** (attempts - 1)


def send_chunk(update_id: str, channel: str, delivery_ids: list[int]) -> tuple[list[int], int]:
    """Send the claimable deliveries among delivery_ids.

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
    retry_ids = record_outcomes(send_all(backend, build, deliveries), channel)
    if not retry_ids:
        return [], 0
    retrying = set(retry_ids)
    return retry_ids, retry_delay(max(d.attempts for d in deliveries if d.pk in retrying))
