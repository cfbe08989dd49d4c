"""DELETE of trails and points: a move to the trash store, restorable in the web app."""

from django.db import transaction
from django.utils import timezone

from publishing.scheduling import request_compile
from trails.models import Point, Trail


def _trash(row: Trail | Point, by_uid: str, reason: str) -> None:
    with transaction.atomic():
        type(row).objects.filter(pk=row.pk).update(trashed_on=timezone.now(), trashed_by=by_uid)
        request_compile(row.trail_system_id, reason)


def trash_trail(trail: Trail, by_uid: str) -> None:
    _trash(trail, by_uid, "trail trashed")


def trash_point(point: Point, by_uid: str) -> None:
    _trash(point, by_uid, "point trashed")
