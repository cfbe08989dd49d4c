"""The trash: DELETE moves a trail or point out of sight; the web app restores it, or its
Administrators delete it for good.

Each function writes in one transaction, records the move in the status history (field
`trashed`) and queues a recompile, exactly like any other write.
"""

from django.db import transaction
from django.utils import timezone

from core.actors import Actor
from core.compiles import request_compile
from core.errors import Invalid, NotFound
from core.models import Trashable
from trails import history
from trails.models import Point, Trail


class TrashError(Invalid):
    """The row is not in the state the operation needs (already trashed, or not trashed)."""


def _move(obj: Trashable, actor: Actor, *, to_trash: bool, reason: str) -> None:
    """The row's state is read again under its lock, so of two people moving the same row at
    once the second is told it has already moved (and nothing is recorded twice)."""
    with transaction.atomic():
        manager = type(obj)._base_manager
        stored = manager.select_for_update().filter(pk=obj.pk).values_list("trashed_on").first()
        if stored is None:
            name = obj._meta.concrete_model._meta.model_name
            raise NotFound(f"{name}_not_found", f"No {name} {obj.pk!r}.")
        if (stored[0] is not None) == to_trash:
            state = "already in the trash" if to_trash else "not in the trash"
            raise TrashError(
                "invalid_field", f"{obj._meta.verbose_name.capitalize()} {obj.pk} is {state}."
            )
        now = timezone.now()
        obj.trashed_on = now if to_trash else None
        obj.trashed_by = actor.uid if to_trash else ""
        obj.updated_on = now
        obj.updated_by = actor.uid
        obj.save(update_fields=["trashed_on", "trashed_by", "updated_on", "updated_by"])
        if isinstance(obj, Trail):
            record = history.trail_change(obj, actor, history.TRASHED, not to_trash, to_trash)
        else:
            record = history.point_change(obj, actor, history.TRASHED, not to_trash, to_trash)
        history.save_changes([record])
        request_compile(obj.trail_system_id, reason=f"{reason} {obj.pk}")


def trash_trail(*, trail: Trail, actor: Actor) -> None:
    _move(trail, actor, to_trash=True, reason="trail trashed")


def trash_point(*, point: Point, actor: Actor) -> None:
    _move(point, actor, to_trash=True, reason="point trashed")


def restore_trail(*, trail: Trail, actor: Actor) -> None:
    _move(trail, actor, to_trash=False, reason="trail restored")


def restore_point(*, point: Point, actor: Actor) -> None:
    _move(point, actor, to_trash=False, reason="point restored")


def _delete(obj: Trail | Point, reason: str) -> None:
    """Removed at once and for good, with its status history: nothing of the row remains to
    stamp or to read the history of (the web app's own log names who deleted it)."""
    with transaction.atomic():
        type(obj)._base_manager.filter(pk=obj.pk).delete()
        request_compile(obj.trail_system_id, reason=f"{reason} {obj.pk}")


def delete_trail(*, trail: Trail, actor: Actor) -> None:
    _delete(trail, "trail deleted")


def delete_point(*, point: Point, actor: Actor) -> None:
    _delete(point, "point deleted")
