"""The trash: DELETE (the API's, and the web app's Delete) moves a trail or point out of sight;
the web app restores it, or its Administrators delete it for good from the trash.

Each function writes in one transaction, records the move in the status history (field
`trashed`) and queues one recompile per system it touched, exactly like any other write. The
bulk functions (the web app's list actions) take many rows at once: a row that is not in the
state the operation needs is left as it is and returned with the reason, the others are done.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from core.actors import Actor
from core.compiles import request_compile
from core.errors import DomainError, Invalid, NotFound
from core.models import Trashable
from trails import history
from trails.models import Point, Trail


class TrashError(Invalid):
    """The row is not in the state the operation needs (already trashed, or not trashed)."""


@dataclass
class BulkOutcome:
    """What a bulk operation did: the rows done, and each row refused with the reason."""

    done: list[Trashable] = field(default_factory=list)
    refused: list[tuple[Trashable, DomainError]] = field(default_factory=list)


def _sort(model: type[Trashable], rows: Sequence[Trashable], *, trashed: bool) -> BulkOutcome:
    """Lock the rows and part those in the trash state `trashed` from the others. Read again
    under the lock, so of two people moving the same row at once the second is told it has
    already moved (and nothing is done twice); locked in id order, so that two bulk
    operations on the same rows queue instead of deadlocking."""
    outcome = BulkOutcome()
    stored = dict(
        model._base_manager.select_for_update()
        .filter(pk__in=[row.pk for row in rows])
        .order_by("pk")
        .values_list("pk", "trashed_on")
    )
    for row in rows:
        if row.pk not in stored:
            name = model._meta.model_name
            outcome.refused.append((row, NotFound(f"{name}_not_found", f"No {name} {row.pk!r}.")))
        elif (stored[row.pk] is not None) != trashed:
            state = "not in the trash" if trashed else "already in the trash"
            message = f"{model._meta.verbose_name.capitalize()} {row.pk} is {state}."
            outcome.refused.append((row, TrashError("invalid_field", message)))
        else:
            outcome.done.append(row)
    return outcome


def _request_compiles(rows: list[Trashable], reason: str) -> None:
    """One compile request for each system the rows belong to; its reason names the row, or
    counts the rows (ids may be long, and the reason is short)."""
    by_system: dict[str, list[str]] = {}
    for row in rows:
        by_system.setdefault(row.trail_system_id, []).append(row.pk)
    for system_id, ids in sorted(by_system.items()):
        named = ids[0] if len(ids) == 1 else f"({len(ids)})"
        request_compile(system_id, reason=f"{reason} {named}")


def _move_many(
    model: type[Trashable], rows: Sequence[Trashable], actor: Actor, *, to_trash: bool, reason: str
) -> BulkOutcome:
    with transaction.atomic():
        outcome = _sort(model, rows, trashed=not to_trash)
        if not outcome.done:
            return outcome
        now = timezone.now()
        stamps = {
            "trashed_on": now if to_trash else None,
            "trashed_by": actor.uid if to_trash else "",
            "updated_on": now,
            "updated_by": actor.uid,
        }
        model._base_manager.filter(pk__in=[row.pk for row in outcome.done]).update(**stamps)
        change = history.trail_change if model is Trail else history.point_change
        history.save_changes(
            change(row, actor, history.TRASHED, not to_trash, to_trash) for row in outcome.done
        )
        for row in outcome.done:
            for name, value in stamps.items():
                setattr(row, name, value)
        _request_compiles(outcome.done, reason)
    return outcome


def _delete_many(model: type[Trashable], rows: Sequence[Trashable], reason: str) -> BulkOutcome:
    """Removed at once and for good, with their status history: nothing of the rows remains
    to stamp or to read the history of (the web app's own log names who deleted them). Only
    rows in the trash: one restored meanwhile is live again, and stays."""
    with transaction.atomic():
        outcome = _sort(model, rows, trashed=True)
        if outcome.done:
            model._base_manager.filter(pk__in=[row.pk for row in outcome.done]).delete()
            _request_compiles(outcome.done, reason)
    return outcome


def _one(outcome: BulkOutcome) -> None:
    """The single-row form: its refusal is raised."""
    if outcome.refused:
        raise outcome.refused[0][1]


def trash_trails(*, trails: Sequence[Trail], actor: Actor) -> BulkOutcome:
    return _move_many(Trail, trails, actor, to_trash=True, reason="trails trashed")


def trash_points(*, points: Sequence[Point], actor: Actor) -> BulkOutcome:
    return _move_many(Point, points, actor, to_trash=True, reason="points trashed")


def restore_trails(*, trails: Sequence[Trail], actor: Actor) -> BulkOutcome:
    return _move_many(Trail, trails, actor, to_trash=False, reason="trails restored")


def restore_points(*, points: Sequence[Point], actor: Actor) -> BulkOutcome:
    return _move_many(Point, points, actor, to_trash=False, reason="points restored")


def delete_trails(*, trails: Sequence[Trail], actor: Actor) -> BulkOutcome:
    return _delete_many(Trail, trails, "trails deleted")


def delete_points(*, points: Sequence[Point], actor: Actor) -> BulkOutcome:
    return _delete_many(Point, points, "points deleted")


def trash_trail(*, trail: Trail, actor: Actor) -> None:
    _one(trash_trails(trails=[trail], actor=actor))


def trash_point(*, point: Point, actor: Actor) -> None:
    _one(trash_points(points=[point], actor=actor))


def restore_trail(*, trail: Trail, actor: Actor) -> None:
    _one(restore_trails(trails=[trail], actor=actor))


def restore_point(*, point: Point, actor: Actor) -> None:
    _one(restore_points(points=[point], actor=actor))


def delete_trail(*, trail: Trail, actor: Actor) -> None:
    _one(delete_trails(trails=[trail], actor=actor))


def delete_point(*, point: Point, actor: Actor) -> None:
    _one(delete_points(points=[point], actor=actor))
