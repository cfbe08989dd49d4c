"""From recorded events to messages: each change goes to the followers whose rules want it,
and becomes, per follower, at most a message now and one a moment later.

Coalescing: the first change a follower hears of goes at once; what follows within
ALERTS_COALESCE_SECONDS of that message waits and goes as one ("11 more trails open: ...").
Quiet hours (in the system's zone) hold changes until they end, all in one message, except a
closure for danger or a danger notice, which goes at once. With "once a day", a rule gives at
most one message per day (in the system's zone).

One fan-out per system at a time (a PostgreSQL session lock), so two commits a moment apart
cannot both send "at once"."""

from collections import defaultdict
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from alerts import push, tally
from alerts.changes import Change, changes_of
from alerts.models import Alert, AlertEvent, Channel, Follower, Rule, SystemAlerts
from alerts.texts import CLOSES, GROOMED, SNOW
from core.locks import try_transaction_lock
from trails.models import TrailSystem
from trails.timezones import zone_of

EVENTS_PER_RUN = 500
CHUNK = 5000


def queue_of(follower: Follower) -> str:
    return push.origin(follower.endpoint) if follower.channel == Channel.PUSH else follower.channel


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


def fan_out(system_id: str, now: datetime | None = None) -> dict[str, datetime] | None:
    """Fan out the system's recorded events; returns each queue given messages, with the
    earliest time one of them is due (None: another fan-out of the system holds its lock)."""
    now = now or timezone.now()
    with transaction.atomic():
        if not try_transaction_lock(f"alerts:{system_id}"):
            return None
        due: dict[str, datetime] = {}
        while batch := list(
            AlertEvent.objects.filter(trail_system_id=system_id, fanned_out_on=None).order_by("id")[
                :EVENTS_PER_RUN
            ]
        ):
            for queue, at in _fan_out_batch(system_id, batch, now).items():
                due[queue] = min(at, due.get(queue, at))
            AlertEvent.objects.filter(pk__in=[event.pk for event in batch]).update(
                fanned_out_on=now
            )
    return due


def _fan_out_batch(system_id: str, batch: list[AlertEvent], now: datetime) -> dict[str, datetime]:
    system = TrailSystem.objects.get(pk=system_id)
    if SystemAlerts.objects.filter(trail_system=system).exists():
        return {}
    changes = [change for event in batch for change in changes_of(event, system)]
    if not changes:
        return {}
    rules = Rule.objects.filter(follower__trail_system=system, follower__confirmed_on__isnull=False)
    by_follower: dict[str, list[tuple[Change, Rule]]] = defaultdict(list)
    for rule in rules.only(
        "id", "follower_id", "trail_id", "activity", "on", "condition", "snow_cm", "last_alert_on"
    ).iterator(chunk_size=CHUNK):
        for change in changes:
            if wanted(rule, change):
                by_follower[rule.follower_id].append((change, rule))
    if not by_follower:
        return {}
    zone = zone_of(system)
    return _make_alerts(system, by_follower, zone, now)


def _make_alerts(
    system: TrailSystem,
    by_follower: dict[str, list[tuple[Change, Rule]]],
    zone: ZoneInfo,
    now: datetime,
) -> dict[str, datetime]:
    window = timedelta(seconds=settings.ALERTS_COALESCE_SECONDS)
    waiting = {}
    for alert in Alert.objects.filter(
        follower__trail_system=system, state=Alert.State.PENDING, due_on__gt=now, urgent=False
    ).order_by("-due_on"):
        waiting[alert.follower_id] = alert
    followers = Follower.objects.filter(trail_system=system, confirmed_on__isnull=False).only(
        "id", "channel", "endpoint", "quiet_from", "quiet_to", "once_per_day", "last_message_on"
    )
    new, appended, messaged, rules_used = [], [], [], []
    counts: dict[tuple[str, str], int] = defaultdict(int)
    due: dict[str, datetime] = {}

    def add(alert: Alert) -> None:
        new.append(alert)
        due[alert.queue] = min(alert.due_on, due.get(alert.queue, alert.due_on))

    for follower in followers.iterator(chunk_size=CHUNK):
        pairs = by_follower.get(follower.pk)
        if not pairs:
            continue
        changes = _changes_to_send(follower, pairs, zone, now, rules_used)
        counts[follower.channel, tally.COALESCED] += len(pairs) - len(changes)
        if not changes:
            continue
        queue = queue_of(follower)
        danger = [change.item for change in changes if change.danger]
        rest = [change.item for change in changes if not change.danger]
        if danger:
            add(Alert(follower=follower, queue=queue, items=danger, urgent=True, due_on=now))
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
                add(Alert(follower=follower, queue=queue, items=rest, held=True, due_on=quiet))
        elif existing is not None:
            counts[follower.channel, tally.COALESCED] += len(rest)
            existing.items += rest
            appended.append(existing)
        elif follower.last_message_on and now - follower.last_message_on < window:
            counts[follower.channel, tally.COALESCED] += len(rest)
            later = follower.last_message_on + window
            add(Alert(follower=follower, queue=queue, items=rest, follows=True, due_on=later))
        else:
            first, more = rest[0], rest[1:]
            urgent = first["kind"] == CLOSES
            add(Alert(follower=follower, queue=queue, items=[first], urgent=urgent, due_on=now))
            messaged.append(follower.pk)
            if more:
                counts[follower.channel, tally.COALESCED] += len(more)
                add(
                    Alert(
                        follower=follower, queue=queue, items=more, follows=True,
                        due_on=now + window,
                    )
                )  # fmt: skip
    Alert.objects.bulk_create(new, batch_size=CHUNK)
    Alert.objects.bulk_update(appended, ["items"], batch_size=CHUNK)
    for start in range(0, len(messaged), CHUNK):
        Follower.objects.filter(pk__in=messaged[start : start + CHUNK]).update(last_message_on=now)
    for start in range(0, len(rules_used), CHUNK):
        Rule.objects.filter(pk__in=rules_used[start : start + CHUNK]).update(last_alert_on=now)
    tally.add(counts)
    return due


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
