"""The trash: DELETE moves a trail or point out of sight; the web app restores it.

Each function writes in one transaction and queues a recompile, exactly like any other write.
"""

from django.db import transaction
from django.utils import timezone

from core.compiles import request_compile
from core.models import Trashable
from trails.models import Point, Trail


class TrashError(ValueError):
    """The row is not in the state the operation needs (already trashed, or not trashed)."""


def _move(obj: Trashable, by_uid: str, *, to_trash: bool, reason: str) -> None:
    if obj.is_trashed == to_trash:
        state = "already in the trash" if to_trash else "not in the trash"
        raise TrashError(f"{obj._meta.verbose_name.capitalize()} {obj.pk} is {state}.")
    now = timezone.now()
    obj.trashed_on = now if to_trash else None
    obj.trashed_by = by_uid if to_trash else ""
    obj.updated_on = now
    obj.updated_by = by_uid
    with transaction.atomic():
        obj.save(update_fields=["trashed_on", "trashed_by", "updated_on", "updated_by"])
        request_compile(obj.trail_system_id, reason=f"{reason} {obj.pk}")


def trash_trail(trail: Trail, by_uid: str) -> None:
    _move(trail, by_uid, to_trash=True, reason="trail trashed")


def trash_point(point: Point, by_uid: str) -> None:
    _move(point, by_uid, to_trash=True, reason="point trashed")


def restore_trail(trail: Trail, by_uid: str) -> None:
    _move(trail, by_uid, to_trash=False, reason="trail restored")


def restore_point(point: Point, by_uid: str) -> None:
    _move(point, by_uid, to_trash=False, reason="point restored")
