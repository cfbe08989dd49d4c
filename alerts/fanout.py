"""From recorded events to messages: each change goes to the followers whose rules want it,
and becomes, per follower, at most a message now and one a moment later.

Coalescing: the first change a follower hears of goes at once; what follows within
ALERTS_COALESCE_SECONDS of that message waits and goes as one ("11 more trails open: ...").
Quiet hours (in the system's zone) hold changes until they end, all in one message, except a
closure for danger or a danger notice, which goes at once. With "once a day", a rule gives at
most one message per day (in the system's zone).

One fan-out per system at a time (a PostgreSQL session lock, held from its first follower to
its last), so two commits a moment apart cannot both send "at once". It goes through the
system's followers in id order, CHUNK at a time, each chunk's messages committed with how far
it got (AlertEvent.fanned_out_to): they are sent while the next chunk is made, and a fan-out
that stopped (its worker lost) goes on from there, telling no follower twice. Each message
goes in its follower's lane (lane_of) of its compartment: the lanes are sent at once."""

import zlib
from collections import defaultdict
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from itertools import takewhile
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from alerts import push, tally
from alerts.changes import Change, changes_of
from alerts.models import Alert, AlertEvent, Channel, Follower, Rule, SystemAlerts
from alerts.texts import CLOSES, GROOMED, SNOW, Item
from core.locks import session_lock
from trails.models import TrailSystem
from trails.timezones import zone_of

EVENTS_PER_RUN = 500
# Followers whose messages are made and committed at once (then sent while the next
# chunk's are made).
CHUNK = 2000
# Followers given a message by one INSERT (within SQLite's bound on a statement's parameters).
INSERT_BATCH = 500
# (compartment, lane): the earliest time a message of it is due.
Due = dict[tuple[str, int], datetime]


def queue_of(follower: Follower) -> str:
    return push.origin(follower.endpoint) if follower.channel == Channel.PUSH else follower.channel


def lane_of(follower_id: str) -> int:
    """The follower's lane of its compartment: the same in every process (unlike hash())."""
    return zlib.crc32(follower_id.encode()) % settings.ALERTS_LANES


def wanted(rule: Rule, change: Change) -> bool:
    if change.kind not in rule.on:
        return False
    concerned = change.trail_ids
    if rule.trail_id is not None and concerned is not None and rule.trail_id not in concerned:
        return False
    if rule.activity and change.activity and rule.activity != change.activity:
        return False
    if rule.condition and change.kind == GROOMED and change.condition != rule.condition:
        return False
    return change.kind != SNOW or rule.snow_cm is None or change.snow_cm >= rule.snow_cm


def quiet_until(follower: Follower, now: datetime, zone: ZoneInfo) -> datetime | None:
    """The end of the follower's quiet hours when `now` is inside them."""
    start, end = follower.quiet_from, follower.quiet_to
    if start is None or end is None:
        return None
    local = now.astimezone(zone)
    clock = local.time().replace(tzinfo=None)
    inside = start <= clock < end if start < end else clock >= start or clock < end
    if not inside:
        return None
    day = local.date() if clock < end else local.date() + timedelta(days=1)
    return datetime.combine(day, end, tzinfo=zone)


def fan_out(
    system_id: str,
    now: datetime | None = None,
    committed: Callable[[Due], object] | None = None,
) -> Due | None:
    """Fan out the system's recorded events; returns each lane given messages, with the
    earliest time one of them is due (None: another fan-out of the system holds its lock).
    `committed(due)` is told each chunk's, once it has committed."""
    now = now or timezone.now()
    with session_lock(f"alerts:{system_id}") as held:
        if not held:
            return None
        system = TrailSystem.objects.get(pk=system_id)
        due: Due = {}
        while events := _events_to_fan_out(system_id):
            for chunk_due in _fan_out_events(system, events, now):
                for lane, at in chunk_due.items():
                    due[lane] = min(at, due.get(lane, at))
                if committed is not None:
                    committed(chunk_due)
    return due


def has_events_waiting(system_id: str) -> bool:
    """Whether the system has events not fanned out, once its fan-out has let go of it: a
    change's own fan-out that found the system held left its events to the holder."""
    return AlertEvent.objects.filter(trail_system_id=system_id, fanned_out_on=None).exists()


def _events_to_fan_out(system_id: str) -> list[AlertEvent]:
    """The oldest events not fanned out yet that got as far as the oldest one (a fan-out
    that stopped goes on with its own events first)."""
    events = list(
        AlertEvent.objects.filter(trail_system_id=system_id, fanned_out_on=None).order_by("id")[
            :EVENTS_PER_RUN
        ]
    )
    if not events:
        return []
    return list(takewhile(lambda event: event.fanned_out_to == events[0].fanned_out_to, events))


def _fan_out_events(system: TrailSystem, events: list[AlertEvent], now: datetime) -> Iterator[Due]:
    """The events' messages, a chunk of followers at a time (each committed with how far
    the events got); then the events are fanned out."""
    event_ids = [event.pk for event in events]
    changes = []
    if not SystemAlerts.objects.filter(trail_system=system).exists():
        changes = [change for event in events for change in changes_of(event, system)]
    followers = Follower.objects.filter(trail_system=system, confirmed_on__isnull=False).only(
        "id", "channel", "endpoint", "quiet_from", "quiet_to", "once_per_day", "last_message_on"
    )
    after = events[0].fanned_out_to
    zone = zone_of(system)
    while True:
        with transaction.atomic():
            chunk = list(followers.filter(pk__gt=after).order_by("pk")[:CHUNK]) if changes else []
            due = _make_alerts(system, chunk, changes, zone, now) if chunk else {}
            done = len(chunk) < CHUNK
            after = chunk[-1].pk if chunk else after
            AlertEvent.objects.filter(pk__in=event_ids).update(
                fanned_out_to=after, fanned_out_on=now if done else None
            )
        yield due
        if done:
            return


def _rules_of(system: TrailSystem, chunk: list[Follower], changes: list[Change]):
    """The rules of the chunk's followers that may want one of the changes."""
    rules = Rule.objects.filter(
        follower__trail_system=system,
        follower__confirmed_on__isnull=False,
        follower_id__gte=chunk[0].pk,
        follower_id__lte=chunk[-1].pk,
    )
    if all(change.trail_ids is not None for change in changes):
        concerned = set().union(*(change.trail_ids for change in changes))
        rules = rules.filter(Q(trail_id__in=concerned) | Q(trail_id=None))
    return rules.only(
        "id", "follower_id", "trail_id", "activity", "on", "condition", "snow_cm", "last_alert_on"
    )


def _make_alerts(
    system: TrailSystem,
    chunk: list[Follower],
    changes: list[Change],
    zone: ZoneInfo,
    now: datetime,
) -> Due:
    by_follower: dict[str, list[tuple[Change, Rule]]] = defaultdict(list)
    for rule in _rules_of(system, chunk, changes):
        for change in changes:
            if wanted(rule, change):
                by_follower[rule.follower_id].append((change, rule))
    if not by_follower:
        return {}
    window = timedelta(seconds=settings.ALERTS_COALESCE_SECONDS)
    waiting = {}
    for alert in Alert.objects.filter(
        follower__trail_system=system,
        follower_id__gte=chunk[0].pk,
        follower_id__lte=chunk[-1].pk,
        state=Alert.State.PENDING,
        due_on__gt=now,
        urgent=False,
    ).order_by("-due_on"):
        waiting[alert.follower_id] = alert
    new = NewAlerts()
    appended, messaged, rules_used = [], [], []
    counts: dict[tuple[str, str], int] = defaultdict(int)
    for follower in chunk:
        pairs = by_follower.get(follower.pk)
        if not pairs:
            continue
        changes_now = _changes_to_send(follower, pairs, zone, now, rules_used)
        counts[follower.channel, tally.COALESCED] += len(pairs) - len(changes_now)
        if not changes_now:
            continue
        lane = (queue_of(follower), lane_of(follower.pk))
        danger = [change.item for change in changes_now if change.danger]
        rest = [change.item for change in changes_now if not change.danger]
        if danger:
            new.add(follower.pk, lane, danger, urgent=True, due_on=now)
        if not rest:
            continue
        quiet = quiet_until(follower, now, zone)
        existing = waiting.get(follower.pk)
        if quiet is not None:
            counts[follower.channel, tally.HELD] += len(rest)
            if existing is not None and existing.held:
                existing.items += rest
                appended.append(existing)
            else:
                new.add(follower.pk, lane, rest, held=True, due_on=quiet)
        elif existing is not None:
            counts[follower.channel, tally.COALESCED] += len(rest)
            existing.items += rest
            appended.append(existing)
        elif follower.last_message_on and now - follower.last_message_on < window:
            counts[follower.channel, tally.COALESCED] += len(rest)
            later = follower.last_message_on + window
            new.add(follower.pk, lane, rest, follows=True, due_on=later)
        else:
            first, more = rest[0], rest[1:]
            new.add(follower.pk, lane, [first], urgent=first["kind"] == CLOSES, due_on=now)
            messaged.append(follower.pk)
            if more:
                counts[follower.channel, tally.COALESCED] += len(more)
                new.add(follower.pk, lane, more, follows=True, due_on=now + window)
    new.insert(now)
    Alert.objects.bulk_update(appended, ["items"], batch_size=CHUNK)
    Follower.objects.filter(pk__in=messaged).update(last_message_on=now)
    Rule.objects.filter(pk__in=rules_used).update(last_alert_on=now)
    tally.add(counts)
    return new.due


class NewAlerts:
    """A chunk's new messages, grouped by what they say and when: a group is one INSERT for
    a batch of followers, however many they are (not a row of values for each)."""

    def __init__(self) -> None:
        self.groups: dict[tuple, tuple[list[Item], list[str]]] = {}
        self.due: Due = {}

    def add(
        self,
        follower_id: str,
        lane: tuple[str, int],
        items: list[Item],
        *,
        due_on: datetime,
        urgent: bool = False,
        follows: bool = False,
        held: bool = False,
    ) -> None:
        # The items are the changes' own: the same objects for every follower told of them.
        said = (lane, tuple(map(id, items)), urgent, follows, held, due_on)
        self.groups.setdefault(said, (items, []))[1].append(follower_id)
        self.due[lane] = min(due_on, self.due.get(lane, due_on))

    def insert(self, now: datetime) -> None:
        columns = ("queue", "lane", "items", "urgent", "follows", "held", "due_on", "created_on")
        sql = (
            f"INSERT INTO {Alert._meta.db_table} (follower_id, {', '.join(columns)}, state, "
            f"attempts, error) SELECT id, {', '.join(['%s'] * len(columns))}, %s, 0, '' "
            f"FROM {Follower._meta.db_table} WHERE id IN "
        )
        with connection.cursor() as cursor:
            for (lane, _, urgent, follows, held, due_on), (items, ids) in self.groups.items():
                values = (*lane, items, urgent, follows, held, due_on, now)
                constants = [
                    Alert._meta.get_field(name).get_db_prep_save(value, connection)
                    for name, value in zip(columns, values, strict=True)
                ]
                for start in range(0, len(ids), INSERT_BATCH):
                    batch = ids[start : start + INSERT_BATCH]
                    cursor.execute(
                        f"{sql}({', '.join(['%s'] * len(batch))})",
                        [*constants, Alert.State.PENDING, *batch],
                    )


def _changes_to_send(
    follower: Follower,
    pairs: list[tuple[Change, Rule]],
    zone: ZoneInfo,
    now: datetime,
    rules_used: list[int],
) -> list[Change]:
    """Each change once (two rules may want it, and a trail closed with its activities is
    one change to a rider); with "once a day", only through rules that gave no message
    today."""
    today = now.astimezone(zone).date()
    changes: dict[object, Change] = {}
    spent: set[int] = set()
    for change, rule in pairs:
        if follower.once_per_day:
            if rule.pk in spent or (
                rule.last_alert_on and rule.last_alert_on.astimezone(zone).date() == today
            ):
                continue
            spent.add(rule.pk)
            rules_used.append(rule.pk)
        trail_id = change.item.get("trailId")
        changes.setdefault((change.kind, trail_id) if trail_id else id(change), change)
    return list(changes.values())
