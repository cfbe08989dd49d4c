"""Sending the alerts that are due, through the alerts channel's fair queue
(core.fairqueue): a *key* is a lane of a system's alerts through one compartment (`queue`: a
push service's origin, or the e-mail or SMS channel; alerts.senders sends each alert; `lane`:
alerts.fanout.lane_of the follower), so a system's fan-out is served in turn with every other
system's, up to ALERTS_SLOTS_PER_SYSTEM of its lanes at once (in as many worker processes),
and a compartment slow even when it answers gets shorter shares and rests between them. A
slow or failing push service holds up only its own compartment, never another's, nor
publishing or webhooks (their own Celery queue too).

A lane's due alerts go oldest first, a batch at a time, over one kept-alive connection for one
share of a worker. A 404 or 410 means the subscription is gone (as does a mail server's or
SMS provider's permanent refusal of the address or number): the follower is deleted. A 429,
a 5xx or no answer within 5 s (a mail server or SMS provider that fails) makes the whole
compartment (every system's alerts through it) back off: ALERTS_RETRY_SECONDS after the first
failure in a row, then 3 times longer each time, at most 2 hours apart, each within 20 %
(core.retries), or the push service's Retry-After when that is longer. Another refusal (400,
403, 413) refuses that alert only. An alert not sent within its TTL is given up (refused)."""

import time
from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from alerts import tally
from alerts.models import Alert, AlertQueue, Follower
from alerts.outcomes import Outcome
from alerts.senders import Sender, sender_for
from core import retries
from core.fairqueue import Share, joined_key, joined_keys_due, key_lock, split_key
from trails.models import TrailSystem

RETRY_FACTOR = 3
RETRY_MAX = timedelta(hours=2)
BATCH_SIZE = 50
PENDING = Alert.State.PENDING
# The fair queue's channel (core.fairqueue), which names the keys' sending locks.
CHANNEL = "alerts"


def share_key(system_id: str, queue: str, lane: int) -> str:
    """The fair queue's key of a lane of a system's alerts through one compartment."""
    return joined_key(system_id, queue, lane)


def _parts(key: str) -> tuple[str, str, str]:
    """The system, the compartment and the lane of a key."""
    system_id, queue, lane = split_key(key, 2)
    return system_id, queue, lane


def _of_key(key: str):
    system_id, queue, lane = _parts(key)
    return Alert.objects.filter(
        queue=queue, lane=lane, follower__trail_system_id=system_id, state=PENDING
    )


def retry_delay(failures: int) -> timedelta:
    first = timedelta(seconds=settings.ALERTS_RETRY_SECONDS)
    return retries.retry_delay(failures, first=first, factor=RETRY_FACTOR, longest=RETRY_MAX)


def due(key: str, now: datetime):
    return _of_key(key).filter(due_on__lte=now)


def due_keys(now: datetime, among: Collection[str] | None = None) -> list[tuple[str, str]]:
    """(system, key) of every key (of `among`, when given) with an alert due now, its
    compartment not backing off."""
    backing_off = AlertQueue.objects.filter(backoff_until__gt=now).values("name")
    alerts = Alert.objects.filter(state=PENDING, due_on__lte=now).exclude(queue__in=backing_off)
    return joined_keys_due(alerts, among, "follower__trail_system_id", "queue", "lane")


@dataclass
class Run:
    attempts: int = 0
    # When the key has something to send next, later (a retry, or a coalesced message); not
    # what is due already: the fair queue gives the freed slot to what is due as the run ends.
    next_due: datetime | None = None


def send_due(key: str, now: datetime | None = None) -> Run:
    """Send the key's due alerts (due by `now`, else by the clock as it runs), for one share
    of a worker, under its lock (the fair queue's task takes the same lock)."""
    with key_lock(CHANNEL, key) as held:
        if not held:  # its holder looks for due alerts until its share is spent
            return Run()
        return send_share(key, Share(), now)


def send_share(key: str, share: Share, now: datetime | None = None) -> Run:
    """What send_due does once it holds the key's lock (as the fair queue's task does)."""
    run = Run()
    system_id, queue, _ = _parts(key)
    # Every alert of the key is the one system's: its three columns the messages name, read
    # once (each alert reading the system's whole row was a sixth of a message's CPU).
    system = TrailSystem.objects.only("id", "name", "language").filter(pk=system_id).first()
    sender = sender_for(queue)  # one connection for the whole share
    try:
        while (
            system is not None
            and share.more()
            and _send_batch(key, system, sender, run, share, now or timezone.now())
        ):
            pass
    finally:
        sender.close()
    now = now or timezone.now()
    backoff = AlertQueue.objects.filter(name=queue, backoff_until__gt=now).first()
    upcoming = _of_key(key).order_by("due_on").values_list("due_on", flat=True).first()
    if upcoming is not None:
        next_due = max(upcoming, backoff.backoff_until) if backoff else upcoming
        run.next_due = next_due if next_due > now else None
    return run


def _send_batch(
    key: str, system: TrailSystem, sender: Sender, run: Run, share: Share, now: datetime
) -> bool:
    """One batch of the key's due alerts; False when there was nothing more to send, the
    share was spent, or a failure made the compartment back off."""
    _, queue, _ = _parts(key)
    state = AlertQueue.objects.filter(name=queue).first()
    if state is not None and state.backoff_until and state.backoff_until > now:
        return False
    batch = list(due(key, now).select_related("follower").order_by("due_on", "id")[:BATCH_SIZE])
    if not batch:
        return False
    for alert in batch:
        alert.follower.trail_system = system
    outcomes: list[tuple[Alert, Outcome]] = []
    try:
        for alert in batch:
            if not share.more():
                break
            started = time.monotonic()
            outcome = sender.send(alert)
            share.spent(time.monotonic() - started)
            run.attempts += 1
            outcomes.append((alert, outcome))
            if outcome.retryable:
                break
    finally:
        _record(queue, state, outcomes, now)
    return bool(outcomes) and not outcomes[-1][1].retryable


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
    """The embedded default's background pass: a share of every key's due alerts."""
    now = now or timezone.now()
    return sum(send_due(key, now).attempts for _, key in due_keys(now))
