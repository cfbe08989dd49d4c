"""Sending the alerts that are due, one compartment (`queue`) at a time: a push service's
origin, or the e-mail or SMS channel (alerts.senders sends each alert). A slow or failing
push service holds up only its own queue, never another's, nor publishing or webhooks (their
own Celery queue too).

As the webhook outbox does: one sender per queue at a time (a PostgreSQL session lock), due
alerts oldest first, a batch at a time over one kept-alive connection. A 404 or 410 means
the subscription is gone (as does a mail server's or SMS provider's permanent refusal of the
address or number): the follower is deleted. A 429, a 5xx or no answer within 5 s (a mail
server or SMS provider that fails) makes the whole queue back off: ALERTS_RETRY_SECONDS
after the first failure in a row, then 3 times longer each time, at most 2 hours apart, each
within 20 % (core.retries), or the push service's Retry-After when that is longer. Another
refusal (400, 403, 413) refuses that alert only. An alert not sent within its TTL is given
up (refused)."""

import time
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from alerts import tally
from alerts.models import Alert, AlertQueue, Follower
from alerts.outcomes import Outcome
from alerts.senders import sender_for
from core import retries
from core.locks import session_lock

RETRY_FACTOR = 3
RETRY_MAX = timedelta(hours=2)
BATCH_SIZE = 200
RUN_SECONDS = 30.0
PENDING = Alert.State.PENDING


def retry_delay(failures: int) -> timedelta:
    first = timedelta(seconds=settings.ALERTS_RETRY_SECONDS)
    return retries.retry_delay(failures, first=first, factor=RETRY_FACTOR, longest=RETRY_MAX)


def due(queue: str, now: datetime):
    return Alert.objects.filter(queue=queue, state=PENDING, due_on__lte=now)


def queues_with_due_alerts(now: datetime) -> list[str]:
    backing_off = AlertQueue.objects.filter(backoff_until__gt=now).values("name")
    due_now = Alert.objects.filter(state=PENDING, due_on__lte=now).exclude(queue__in=backing_off)
    return sorted(set(due_now.values_list("queue", flat=True)))


@dataclass
class Run:
    attempts: int = 0
    busy: bool = False
    more_due: bool = False
    # When the queue has something to send next (a retry, or a coalesced message).
    next_due: datetime | None = None


def send_due(queue: str, now: datetime | None = None) -> Run:
    """Send the queue's due alerts (due by `now`, else by the clock as it runs)."""
    run = Run()
    started = time.monotonic()
    with session_lock(f"alerts-queue:{queue}") as held:
        if not held:
            run.busy = True
            return run
        while time.monotonic() - started < RUN_SECONDS:
            if not _send_batch(queue, run, now or timezone.now()):
                break
        else:
            run.more_due = True
    now = now or timezone.now()
    backoff = AlertQueue.objects.filter(name=queue, backoff_until__gt=now).first()
    if backoff is None:
        run.more_due = run.more_due or due(queue, now).exists()
    upcoming = (
        Alert.objects.filter(queue=queue, state=PENDING)
        .order_by("due_on")
        .values_list("due_on", flat=True)
        .first()
    )
    if upcoming is not None:
        run.next_due = max(upcoming, backoff.backoff_until) if backoff else upcoming
    return run


def _send_batch(queue: str, run: Run, now: datetime) -> bool:
    state = AlertQueue.objects.filter(name=queue).first()
    if state is not None and state.backoff_until and state.backoff_until > now:
        return False
    batch = list(
        due(queue, now)
        .select_related("follower", "follower__trail_system")
        .order_by("due_on", "id")[:BATCH_SIZE]
    )
    if not batch:
        return False
    sender = sender_for(queue)
    outcomes: list[tuple[Alert, Outcome]] = []
    try:
        for alert in batch:
            outcome = sender.send(alert)
            run.attempts += 1
            outcomes.append((alert, outcome))
            if outcome.retryable:
                break
    finally:
        sender.close()
        _record(queue, state, outcomes, now)
    return not outcomes[-1][1].retryable


def _record(
    queue: str, state: AlertQueue | None, outcomes: list[tuple[Alert, Outcome]], now: datetime
) -> None:
    """The batch's outcomes, in one transaction: a few statements, however many alerts."""
    sent, refused, gone = [], [], set()
    counts: dict[tuple[str, str], int] = defaultdict(int)
    retry = None
    for alert, outcome in outcomes:
        channel = alert.follower.channel
        if outcome.ok:
            sent.append(alert.pk)
            counts[channel, tally.SENT] += 1
        elif outcome.gone:
            gone.add(alert.follower_id)
            counts[channel, tally.REFUSED] += 1
        elif outcome.retryable and now - alert.created_on < _ttl():
            failures = (state.failures if state else 0) + 1
            wait = max(retry_delay(failures), timedelta(seconds=outcome.retry_after or 0))
            retry = (alert, outcome, failures, now + wait)
        else:
            refused.append((alert.pk, outcome))
            counts[channel, tally.REFUSED] += 1
    with transaction.atomic():
        Alert.objects.filter(pk__in=sent).update(state=Alert.State.SENT, sent_on=now)
        for alert_id, outcome in refused:
            Alert.objects.filter(pk=alert_id).update(
                state=Alert.State.REFUSED,
                response_status=outcome.status,
                error=outcome.error[:500],
            )
        Follower.objects.filter(pk__in=gone).delete()
        if retry is not None:
            alert, outcome, failures, at = retry
            Alert.objects.filter(pk=alert.pk).update(
                attempts=alert.attempts + 1,
                response_status=outcome.status,
                error=outcome.error[:500],
            )
            AlertQueue.objects.update_or_create(
                name=queue, defaults={"failures": failures, "backoff_until": at}
            )
        elif sent and state is not None and state.failures:
            AlertQueue.objects.filter(name=queue).update(failures=0, backoff_until=None)
        tally.add(counts)


def _ttl() -> timedelta:
    return timedelta(seconds=max(settings.ALERTS_PUSH_TTL_SECONDS, 60))


def send_all_due(now: datetime | None = None) -> int:
    """The embedded default's background pass: every queue's due alerts."""
    now = now or timezone.now()
    return sum(send_due(queue, now).attempts for queue in queues_with_due_alerts(now))
