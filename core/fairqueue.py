"""Fair queuing of an outbound channel (webhooks, riders' alerts): every trail system with
work due is served in turn with every other, so that none holds the channel's workers while
others wait. Celery stays the engine; this is the accounting on top of it, in PostgreSQL.

- A *key* is what is served one at a time (a webhook endpoint; a system's alerts through one
  push service; a system's e-mail or SMS notifications), a *tenant* what owns keys (a trail
  system). The channel keeps a row per key, a concrete model of core.models.ChannelKey.
- A *claim* is the one task queued or running for a key: a key has at most one, so nothing
  queues a key twice. The channel has at most `slots` claims (the threads of its workers: the
  queue never holds more sending tasks than that), a tenant at most `per_tenant`, and the slow
  keys together at most half the slots: the other half always serves quick keys.
- A slot that frees goes to the tenant with due work that used the channel least lately
  (worker seconds, halving every USE_HALF_LIFE), each pick counting its key's recent unit
  duration against its tenant (deficit round robin weighted by duration); a tenant's keys go
  in turn (least recently claimed first).
- A task serves its key for one share: QUANTUM seconds of units, or a single unit once a unit
  took SLOW_SECONDS or more. A slow key (its recent units took that long, even when they
  succeeded) then rests as long as its run took: its own backoff, at most half a worker.
- The sweep frees the claims of tasks that were lost (not started within QUEUED_LEASE: a
  broker outage, a worker killed with tasks it had reserved) or whose runner died (its key
  lock is free: the lock dies with the runner's database session), then dispatches.

A channel makes one FairQueue and calls three methods:

    queue = FairQueue(
        channel="webhooks",           # names its locks
        keys=EndpointShare,           # its concrete ChannelKey model
        due=due_endpoints,            # (now, among) -> [(tenant, key)] with work due now
        task=send_webhooks,           # the sending task: task(key, claim) calls serve(key, claim)
        limits=webhook_limits,        # () -> Limits, read at each dispatch
    )
    queue.dispatch(among=keys)        # after a commit that made `keys` due (None: any key)
    queue.serve(key, claim, work)     # in the task: work(share) serves one share of the key
    queue.sweep()                     # from beat: recover lost claims, then dispatch

`serve` frees the claim and dispatches the freed slot itself; a task whose claim is no longer
the key's (queued again after its lease) does nothing. `dispatch_at(task, moments)` queues
the channel's dispatching task for the soonest of a retry's or a rest's end. Without
PostgreSQL (the embedded default's SQLite, tasks in-process) there are no locks and nothing
to dispatch to. The channels' tasks and waiting keys are metrics (trails_fair_queue_*).
"""

import secrets
import time
from collections import Counter
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TypeVar

from django.db import connection, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from core.locks import session_lock, transaction_lock
from core.metrics import DatabaseGauge
from core.models import ChannelKey
from core.queueing import queue

# A run's share of a worker, then its key goes behind the others.
QUANTUM = 5.0
# A unit that took this long makes its run end and, on average, its key slow.
SLOW_SECONDS = 1.0
# A claim whose task has not started after this long is taken as lost.
QUEUED_LEASE = timedelta(seconds=60)
# How fast a tenant's use of the channel is forgotten.
USE_HALF_LIFE = timedelta(seconds=60)
# What a pick counts against its tenant at least (a key never served costs this much).
LEAST_COST = 0.01
# A retry or rest further away than this is left to the sweep: Redis hands a task held
# longer than its visibility timeout to another worker, and a worker holds every countdown
# task in memory.
COUNTDOWN_MAX = timedelta(minutes=5)

T = TypeVar("T")


@dataclass(frozen=True)
class Limits:
    """Claims at once: of the channel (the threads of the workers that consume its queue),
    and of one tenant; slow keys together may hold half the slots."""

    slots: int
    per_tenant: int

    @property
    def slow_slots(self) -> int:
        return max(1, self.slots // 2)


@dataclass
class Share:
    """One run's share of a worker: serve a unit while `more()`, and tell `spent(seconds)`
    after each."""

    quantum: float = QUANTUM
    slow: bool = False
    started: float = field(default_factory=time.monotonic)
    units: int = 0
    seconds: float = 0.0
    longest: float = 0.0
    # Set when the run ends: a slow key is not claimed again before this.
    rest_until: datetime | None = None

    def more(self) -> bool:
        if self.units and (self.slow or self.longest >= SLOW_SECONDS):
            return False
        return time.monotonic() - self.started < self.quantum

    def spent(self, seconds: float) -> None:
        self.units += 1
        self.seconds += seconds
        self.longest = max(self.longest, seconds)

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started


def key_lock(channel: str, key: str):
    """The key's serving lock for this database session (core.locks.session_lock: False
    when another runner holds it)."""
    return session_lock(f"{channel}:{key}")


def _runner_lives(channel: str, key: str, started_on: datetime, now: datetime) -> bool:
    """Whether the runner of a started claim still holds its key (without PostgreSQL's
    locks: whether it started within the lease)."""
    if connection.vendor != "postgresql":
        return started_on > now - QUEUED_LEASE
    with key_lock(channel, key) as free:
        return not free


def decayed(seconds: float, since: datetime | None, now: datetime) -> float:
    if since is None or seconds <= 0:
        return 0.0
    return seconds * 0.5 ** ((now - since) / USE_HALF_LIFE)


def joined_key(tenant: str, *names: object) -> str:
    """A key made of its tenant and names without spaces (a push service's origin and a
    lane, a channel's name)."""
    return " ".join((tenant, *map(str, names)))


def split_key(key: str, names: int = 1) -> tuple[str, ...]:
    """The tenant and the `names` names of a joined key (a tenant's id may hold a space)."""
    return tuple(key.rsplit(" ", names))


def joined_keys_due(
    rows: QuerySet, among: Collection[str] | None, tenant_field: str, *name_fields: str
) -> list[tuple[str, str]]:
    """A channel's `due` for joined keys: (tenant, key) of every distinct (tenant, names) of
    the rows with work due (of the keys `among`, when given)."""
    fields = (tenant_field, *name_fields)
    if among is not None:
        wanted = Q()
        for key in among:
            parts = split_key(key, len(name_fields))
            wanted |= Q(**dict(zip(fields, parts, strict=True)))
        if not wanted:
            return []
        rows = rows.filter(wanted)
    keys = rows.values_list(*fields).distinct()
    return sorted((tenant, joined_key(tenant, *names)) for tenant, *names in keys)


def dispatch_at(task, moments: Collection[datetime | None]) -> bool:
    """Queue the channel's dispatching task (no arguments) for the soonest of `moments` (a
    retry's or a slow key's rest's end), unless that is beyond COUNTDOWN_MAX or none is given;
    never fails the caller (core.queueing)."""
    wakes = [moment for moment in moments if moment is not None]
    if not wakes:
        return False
    wait = min(wakes) - timezone.now()
    if wait > COUNTDOWN_MAX:
        return False
    return queue(task, countdown=max(wait.total_seconds(), 0.0))


class FairQueue:
    """One channel's fair queue (see the module's docstring); every one made is listed in
    `FairQueue.channels`, which the metrics read."""

    channels: dict[str, "FairQueue"] = {}

    def __init__(
        self,
        *,
        channel: str,
        keys: type[ChannelKey],
        due: Callable[[datetime, Collection[str] | None], list[tuple[str, str]]],
        task,
        limits: Callable[[], Limits],
        quantum: float = QUANTUM,
    ):
        """`quantum`: a run's share of a worker, shorter than its task's time limit."""
        self.channel, self.keys, self.due = channel, keys, due
        self.task, self.limits, self.quantum = task, limits, quantum
        FairQueue.channels[channel] = self

    def _lock_channel(self, shared: bool = False) -> None:
        """Dispatches, finishes and sweeps of the channel one at a time (to the commit);
        shared: only waits for the one in progress (a look that changes nothing)."""
        transaction_lock(f"fairqueue:{self.channel}", shared=shared)

    def claimed(self):
        return self.keys.objects.exclude(claim="")

    def tasks(self) -> dict[str, int]:
        """The channel's tasks by state: queued (waiting in its Celery queue) or running."""
        claimed = self.claimed()
        return {
            "queued": claimed.filter(started_on=None).count(),
            "running": claimed.exclude(started_on=None).count(),
        }

    def waiting(self) -> int:
        """Keys with work due and no task: waiting for a free slot (or resting)."""
        busy = set(self.claimed().values_list("pk", flat=True))
        return sum(1 for _, key in self.due(timezone.now(), None) if key not in busy)

    def dispatch(self, among: Collection[str] | None = None) -> int:
        """Claim free slots for keys with work due (of `among` only, when given: the keys a
        commit just made due), fairly, and queue their tasks; returns how many."""
        if among is not None:
            with transaction.atomic():
                self._lock_channel(shared=True)
                if self._none_could_be_claimed(among, timezone.now()):
                    return 0
        with transaction.atomic():
            self._lock_channel()
            picked = self._claim(timezone.now(), among)
        return self._queue(picked)

    def _none_could_be_claimed(self, among: Collection[str], now: datetime) -> bool:
        """Whether no key of `among` can have a slot now: each is claimed (its task looks
        for due work before it ends) or resting, its tenant holds its share, or its lane is
        full. Under the channel's lock shared: writes with keys due, many a second, wait only
        for the dispatch in progress, not for one another; a slot freed after this look is
        dispatched, these keys' work due by then, by the task that frees it."""
        limits = self.limits()
        claimed = list(self.claimed().values_list("pk", "tenant", "slow"))
        if len(claimed) >= limits.slots:
            return True
        rows = list(self.keys.objects.filter(pk__in=among))
        if len(rows) < len(set(among)):
            return False  # a key never claimed
        busy = {key for key, _, _ in claimed}
        per_tenant = Counter(tenant for _, tenant, _ in claimed)
        slow_lane_full = sum(slow for _, _, slow in claimed) >= limits.slow_slots
        return all(
            row.pk in busy
            or (row.rest_until is not None and row.rest_until > now)
            or per_tenant[row.tenant] >= limits.per_tenant
            or (row.slow and slow_lane_full)
            for row in rows
        )

    def sweep(self) -> int:
        """Free the claims of lost tasks and dead runners, then dispatch; returns how many
        tasks it queued."""
        now = timezone.now()
        with transaction.atomic():
            self._lock_channel()
            claimed = self.claimed()
            lost = claimed.filter(started_on=None, claimed_on__lt=now - QUEUED_LEASE)
            dead = [
                key
                for key, started_on in claimed.exclude(started_on=None).values_list(
                    "pk", "started_on"
                )
                if not _runner_lives(self.channel, key, started_on, now)
            ]
            claimed.filter(Q(pk__in=lost.values("pk")) | Q(pk__in=dead)).update(
                claim="", started_on=None
            )
            picked = self._claim(now, None)
        return self._queue(picked)

    def serve(self, key: str, claim: str, work: Callable[[Share], T]) -> tuple[Share, T] | None:
        """In the claim's task: `work(share)` serves one share of the key; then the claim is
        freed and the slot dispatched. Returns the share served (its `rest_until` says when
        a slow key may go again) and what `work` returned; None when the claim is not (or no
        longer) the key's, or another runner holds the key."""
        row = share = None
        try:
            with key_lock(self.channel, key) as held:
                row = self._start(key, claim) if held else None
                if row is None:
                    return None
                share = Share(quantum=self.quantum, slow=row.slow)
                result = work(share)
        finally:
            if row is not None:
                # Once the key's lock is released: a task queued for it now finds it free.
                self._queue(self._finish(row, share))
        return share, result

    def _start(self, key: str, claim: str) -> ChannelKey | None:
        mine = self.keys.objects.filter(pk=key, claim=claim)
        row = mine.first()
        if row is not None:
            mine.update(started_on=timezone.now())
        return row

    def _finish(self, row: ChannelKey, share: Share) -> list[tuple[str, str]]:
        """The run's use recorded, the claim freed and the freed slot claimed, in one
        transaction under the channel's lock."""
        now = timezone.now()
        unit = row.unit_seconds
        if share.units:
            mean = share.seconds / share.units
            unit = mean if row.used_on is None else (unit + mean) / 2
        slow = unit >= SLOW_SECONDS
        row.rest_until = now + timedelta(seconds=share.elapsed) if slow else None
        share.rest_until = row.rest_until
        with transaction.atomic():
            self._lock_channel()
            self.keys.objects.filter(pk=row.pk, claim=row.claim).update(
                claim="",
                started_on=None,
                unit_seconds=unit,
                slow=slow,
                used_seconds=decayed(row.used_seconds, row.used_on, now) + share.elapsed,
                used_on=now,
                rest_until=row.rest_until,
            )
            return self._claim(now, None)

    def _claim(self, now: datetime, among: Collection[str] | None) -> list[tuple[str, str]]:
        """Which keys get the free slots, claimed for new tasks (under the channel's lock)."""
        limits = self.limits()
        busy = list(self.claimed().values_list("tenant", "slow"))
        free = limits.slots - len(busy)
        if free <= 0:
            return []
        due = self.due(now, among)
        if not due:
            return []
        rows = {row.pk: row for row in self.keys.objects.filter(tenant__in={t for t, _ in due})}
        used = Counter()
        for row in rows.values():
            used[row.tenant] += decayed(row.used_seconds, row.used_on, now)
        waiting: dict[str, list[ChannelKey]] = {}
        for tenant, key in due:
            row = rows.get(key) or self.keys(pk=key, tenant=tenant)
            if not row.claim and (row.rest_until is None or row.rest_until <= now):
                waiting.setdefault(tenant, []).append(row)
        for keys in waiting.values():  # a tenant's keys in turn: least recently claimed first
            keys.sort(key=lambda row: (row.claimed_on is not None, row.claimed_on))
        per_tenant = Counter(tenant for tenant, _ in busy)
        slow_busy = sum(slow for _, slow in busy)
        picked: list[ChannelKey] = []
        while free and waiting:
            tenant = min(waiting, key=lambda t: (used[t], t))
            keys = waiting[tenant]
            if slow_busy >= limits.slow_slots:
                keys[:] = [row for row in keys if not row.slow]
            if not keys or per_tenant[tenant] >= limits.per_tenant:
                del waiting[tenant]
                continue
            row = keys.pop(0)
            picked.append(row)
            free -= 1
            per_tenant[tenant] += 1
            slow_busy += row.slow
            used[tenant] += max(row.unit_seconds, LEAST_COST)
        for row in picked:
            row.claim, row.claimed_on, row.started_on = secrets.token_hex(8), now, None
            if row.pk not in rows:  # a key claimed for the first time
                row.save(force_insert=True)
            else:
                self.keys.objects.filter(pk=row.pk).update(
                    claim=row.claim, claimed_on=now, started_on=None
                )
        return [(row.pk, row.claim) for row in picked]

    def _queue(self, picked: list[tuple[str, str]]) -> int:
        """Each claimed key's task queued (after the claim's commit); a claim whose task
        could not be queued (core.queueing never fails its caller) is freed, for the next
        dispatch or sweep. A task not started within the claim's lease is dropped by the
        worker: its claim is given to a new task by then."""
        queued = 0
        for key, claim in picked:
            if queue(self.task, key, claim, expires=QUEUED_LEASE.total_seconds()):
                queued += 1
            else:
                self.keys.objects.filter(pk=key, claim=claim).update(claim="")
        return queued


def _tasks_by_channel():
    for channel, fair_queue in sorted(FairQueue.channels.items()):
        for state, count in fair_queue.tasks().items():
            yield (channel, state), count


def _waiting_by_channel():
    for channel, fair_queue in sorted(FairQueue.channels.items()):
        yield (channel,), fair_queue.waiting()


DatabaseGauge(
    "trails_fair_queue_tasks",
    "A fair-queued channel's sending tasks by state: queued (waiting in its Celery queue) or "
    "running; at most the channel's slots together.",
    ["channel", "state"],
    _tasks_by_channel,
)
DatabaseGauge(
    "trails_fair_queue_keys_waiting",
    "A fair-queued channel's keys (a webhook endpoint, a system's alerts through one push "
    "service, a system's e-mail or SMS) with work due and no sending task.",
    ["channel"],
    _waiting_by_channel,
)
