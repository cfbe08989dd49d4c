"""The status history: every change of a trail's status, an activity's status or difficulty,
a point's status or wait time, and every trash and restore, recorded in the transaction of the
change itself, so a change and its record are committed together or not at all.

Services call these functions; another service that changes such a value (grooming, say) calls
them the same way, with its own path:

    record_trail_change(trail=trail, actor=Actor(uid, Via.GROOMING), field="status",
                        old="Closed", new="Open")

Field names are the API's: status, difficulty, waitTime, trashed."""

from collections.abc import Iterable

from django.db import transaction
from django.utils import timezone

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


def save_changes(changes: Iterable[StatusChange]) -> list[StatusChange]:
    """Store the records whose value really changed, in the caller's transaction."""
    if not transaction.get_connection().in_atomic_block:
        raise HistoryOutsideTransaction("Record the history inside the change's transaction.")
    real = [change for change in changes if change.old_value != change.new_value]
    return StatusChange.objects.bulk_create(real)


def record_trail_change(
    *, trail: Trail, actor: Actor, field: str, old, new, activity: str = ""
) -> None:
    """Record one change of a trail or of one of its activities (nothing when old == new)."""
    save_changes([trail_change(trail, actor, field, old, new, activity)])


def record_point_change(*, point: Point, actor: Actor, field: str, old, new) -> None:
    """Record one change of a point (nothing when old == new)."""
    save_changes([point_change(point, actor, field, old, new)])
