"""The status history: every change of a trail's status, an activity's status or difficulty,
a point's status or wait time, and every trash and restore, recorded in the transaction of the
change itself, so a change and its record are committed together or not at all.

Services call these functions; another service that changes such a value (grooming, say) calls
them the same way, with its own path:

    record_trail_change(trail=trail, actor=Actor(uid, Via.GROOMING), field="status",
                        old="Closed", new="Open")

Field names are the API's: status, difficulty, waitTime, trashed.

Status changes (a trail's, an activity's, a point's) are also announced as the events
`trail.status_changed` and `point.status_changed` (core.events), in the same transaction, so
every path that records one (API, web app, bulk, board, schedules) tells the webhooks."""

from collections import defaultdict
from collections.abc import Iterable

from django.db import transaction
from django.utils import timezone

from core import events
from core.actors import Actor
from trails.models import Point, StatusChange, Trail

STATUS = "status"
DIFFICULTY = "difficulty"
WAIT_TIME = "waitTime"
TRASHED = "trashed"


class HistoryOutsideTransaction(RuntimeError):
    """A record written outside a transaction could outlive a change that failed."""


def _change(actor: Actor, field: str, old, new, **target) -> StatusChange:
    return StatusChange(
        uid=actor.uid, via=actor.via, key_id=actor.key_id, field=field,
        old_value=old, new_value=new, at=timezone.now(), **target,
    )  # fmt: skip


def trail_change(
    trail: Trail, actor: Actor, field: str, old, new, activity: str = ""
) -> StatusChange:
    """An unsaved record of a change to a trail or, with `activity`, to one of its activities."""
    return _change(
        actor, field, old, new,
        trail_id=trail.pk, trail_system_id=trail.trail_system_id, activity=activity,
    )  # fmt: skip


def point_change(point: Point, actor: Actor, field: str, old, new) -> StatusChange:
    return _change(actor, field, old, new, point_id=point.pk, trail_system_id=point.trail_system_id)


def save_changes(*groups: Iterable[StatusChange]) -> list[StatusChange]:
    """Store the records whose value really changed, in the caller's transaction, in one
    INSERT; each group is announced as its own batch, in order (a trail's change, then its
    activities'), with one look-up of the system's endpoints and followers for them all."""
    if not transaction.get_connection().in_atomic_block:
        raise HistoryOutsideTransaction("Record the history inside the change's transaction.")
    batches = [
        [change for change in group if change.old_value != change.new_value] for group in groups
    ]
    saved = StatusChange.objects.bulk_create([change for batch in batches for change in batch])
    _announce_status_changes(batches)
    return saved


def _announce_status_changes(batches: list[list[StatusChange]]) -> None:
    by_system: dict[str, list[list[StatusChange]]] = defaultdict(list)
    for batch in batches:
        of_system: dict[str, list[StatusChange]] = defaultdict(list)
        for change in batch:
            if change.field == STATUS:
                of_system[change.trail_system_id].append(change)
        for system_id, status_changes in of_system.items():
            by_system[system_id].append(status_changes)
    for system_id, status_batches in by_system.items():
        types = {
            events.POINT_STATUS_CHANGED if change.point_id else events.TRAIL_STATUS_CHANGED
            for status_changes in status_batches
            for change in status_changes
        }
        events.announce_batches(
            system_id=system_id,
            types=types,
            builds=[
                lambda changes=status_changes: _status_events(changes)
                for status_changes in status_batches
            ],
        )


def _status_events(changes: list[StatusChange]) -> list[events.Event]:
    """One event per change: the row's id and name (one query for each kind of row), the
    activity for an activity's change, from and to (null: the activity was added or
    removed), and the path it came by."""
    trail_ids = {change.trail_id for change in changes if change.trail_id}
    point_ids = {change.point_id for change in changes if change.point_id}
    trail_names = dict(Trail.all_objects.filter(pk__in=trail_ids).values_list("pk", "name"))
    point_names = dict(Point.all_objects.filter(pk__in=point_ids).values_list("pk", "name"))
    announced = []
    for change in changes:
        common = {"trailSystemId": change.trail_system_id}
        if change.point_id:
            event_type = events.POINT_STATUS_CHANGED
            row = {"pointId": change.point_id, "pointName": point_names.get(change.point_id)}
        else:
            event_type = events.TRAIL_STATUS_CHANGED
            row = {
                "trailId": change.trail_id,
                "trailName": trail_names.get(change.trail_id),
                "activity": change.activity or None,
            }
        moved = {"from": change.old_value, "to": change.new_value, "via": change.via}
        announced.append(events.Event(event_type, {**common, **row, **moved}))
    return announced


def record_trail_change(
    *, trail: Trail, actor: Actor, field: str, old, new, activity: str = ""
) -> None:
    """Record one change of a trail or of one of its activities (nothing when old == new)."""
    save_changes([trail_change(trail, actor, field, old, new, activity)])
