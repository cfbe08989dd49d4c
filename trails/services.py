"""Writes of trail systems, trails and points: the rules of sections 2, 3 and 8.

Each write runs in one transaction and records its compile request in it (request_compile).
Changes are field-level UPDATEs of only the fields sent, under a row lock where rows depend
on each other, so concurrent PATCHes of different fields never lose either."""

import re

from django.db import models, transaction
from django.utils import timezone

from core.compiles import request_compile
from core.errors import Invalid, NotFound
from core.limits import TEXT_LIMIT
from trails.enums import ActivityStatus, TrailStatus
from trails.geometry import GeometryError
from trails.models import Point, Trail, TrailActivity, TrailSystem
from trails.tasks import request_elevations_on_commit

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def write_fields(model: type[models.Model], pk: str, changes: dict, by: str) -> None:
    """One UPDATE of only the given columns, stamped with who and when."""
    model._default_manager.filter(pk=pk).update(**changes, updated_on=timezone.now(), updated_by=by)


# Trail systems


def normalize_website(website: str) -> str:
    """A website without a scheme gets http:// (the stored value is what the limit counts)."""
    if website and not _SCHEME.match(website):
        website = f"http://{website}"
    if len(website) > TEXT_LIMIT:
        raise Invalid(
            "invalid_field", f"website: at most {TEXT_LIMIT} characters with its http:// prefix."
        )
    return website


def change_trail_system(system: TrailSystem, changes: dict, by: str) -> None:
    """PATCH /trail-systems/:id. Public details only: no recompile."""
    if "website" in changes:
        changes = {**changes, "website": normalize_website(changes["website"])}
    write_fields(TrailSystem, system.pk, changes, by)


# Trails


def create_trail(system: TrailSystem, data: dict, by: str) -> Trail:
    """A new trail, with no activities; it sorts to the top unless an order is given."""
    fields = {key: value for key, value in data.items() if key != "geometry"}
    trail = Trail(trail_system=system, created_by=by, updated_by=by, **fields)
    try:
        trail.apply_geometry(data["geometry"])
    except GeometryError as error:
        raise Invalid("invalid_geometry", str(error)) from None
    with transaction.atomic():
        if "order" not in data:
            trail.order = -Trail.objects.filter(trail_system=system).count()
        trail.save(force_insert=True)
        request_compile(system, "trail created")
        request_elevations_on_commit(trail.pk)
    return trail


def change_trail(trail: Trail, changes: dict, by: str) -> None:
    """PATCH /trails/:id. Closed closes every activity; activities must be on the trail."""
    changes = dict(changes)
    activity_changes = changes.pop("activities", [])
    with transaction.atomic():
        if not Trail.objects.select_for_update().filter(pk=trail.pk).exists():
            raise NotFound("trail_not_found", f"No trail {trail.pk!r}.")
        _change_activities(trail, activity_changes)
        if changes.get("status") == TrailStatus.CLOSED:
            TrailActivity.objects.filter(trail=trail).update(status=ActivityStatus.CLOSED)
        write_fields(Trail, trail.pk, changes, by)
        request_compile(trail.trail_system_id, "trail changed")


def _change_activities(trail: Trail, activity_changes: list[dict]) -> None:
    if not activity_changes:
        return
    on_trail = dict(TrailActivity.objects.filter(trail=trail).values_list("value", "pk"))
    unknown = [change["value"] for change in activity_changes if change["value"] not in on_trail]
    if unknown:
        raise Invalid(
            "unknown_activity",
            f"Not on this trail: {', '.join(unknown)}; activities are added in the web app.",
        )
    for change in activity_changes:
        fields = {key: value for key, value in change.items() if key != "value"}
        if fields:
            TrailActivity.objects.filter(pk=on_trail[change["value"]]).update(**fields)


def set_trails_status(
    system: TrailSystem, status: str, trail_ids: list[str] | None, by: str
) -> list[dict]:
    """Bulk status: every id must be a live trail of the system, else nothing changes."""
    with transaction.atomic():
        trails = Trail.objects.select_for_update().filter(trail_system=system)
        if trail_ids is not None:
            trails = trails.filter(pk__in=trail_ids)
        found = list(trails.order_by("order", "created_on").values("id", "name"))
        missing = set(trail_ids or ()) - {trail["id"] for trail in found}
        if missing:
            raise NotFound(
                "trail_not_found", f"Not trails of this system: {', '.join(sorted(missing))}."
            )
        ids = [trail["id"] for trail in found]
        Trail.objects.filter(pk__in=ids).update(
            status=status, updated_on=timezone.now(), updated_by=by
        )
        if status == TrailStatus.CLOSED:
            TrailActivity.objects.filter(trail_id__in=ids).update(status=ActivityStatus.CLOSED)
        request_compile(system, "trail statuses changed")
    return found


# Points


def create_point(system: TrailSystem, data: dict, by: str) -> Point:
    with transaction.atomic():
        point = Point.objects.create(trail_system=system, created_by=by, updated_by=by, **data)
        request_compile(system, "point created")
    return point


def change_point(point: Point, changes: dict, by: str) -> None:
    with transaction.atomic():
        write_fields(Point, point.pk, changes, by)
        request_compile(point.trail_system_id, "point changed")
