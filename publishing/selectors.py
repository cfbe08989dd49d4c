"""Reads what a compile needs with a fixed number of queries, whatever the system's size.

`values_list()` instead of model instances, and the geometry fetched as text and decoded
with orjson (Django's JSONField decodes with the standard library, several times slower):
most of the time of reading a large system is spent on its geometry.
"""

from collections import defaultdict
from dataclasses import fields
from datetime import datetime

import orjson
from django.db.models import TextField
from django.db.models.functions import Cast

from publishing.compile import ActivityRow, PointRow, SystemRows, TrailRow, UpdateRow
from trails.models import Point, Trail, TrailActivity, TrailSystem
from updates.models import Update

_TRAIL_COLUMNS = (
    "id", "name", "geometry_text", "distance", "description", "status", "difficulty", "type",
    "line_style", "hidden", "one_way", "one_way_reversed", "order", "categories",
)  # fmt: skip
_SYSTEM_COLUMNS = (
    "id", "name", "lat", "lng", "open_trails", "caution_trails", "closed_trails",
    "activity_totals", "hidden_activities",
)  # fmt: skip
_POINT_COLUMNS = tuple(f.name for f in fields(PointRow))
_UPDATE_COLUMNS = tuple(f.name for f in fields(UpdateRow) if f.name != "trail_ids")


def load_system_rows(system_id: str, now: datetime) -> SystemRows:
    """Live trails in their list order with their activities, live points newest first, and
    the unexpired updates with the trails they name."""
    language = TrailSystem.objects.values_list("language", flat=True).get(pk=system_id)

    activities: dict[str, list[ActivityRow]] = defaultdict(list)
    for trail_id, value, status, difficulty in (
        TrailActivity.objects.filter(
            trail__trail_system_id=system_id, trail__trashed_on__isnull=True
        )
        .order_by("trail_id", "position", "id")
        .values_list("trail_id", "value", "status", "difficulty")
    ):
        activities[trail_id].append(ActivityRow(value, status, difficulty))

    trails = []
    for row in (
        Trail.objects.filter(trail_system_id=system_id)
        .annotate(geometry_text=Cast("geometry", TextField()))
        .order_by("order", "created_on", "id")
        .values_list(*_TRAIL_COLUMNS)
    ):
        trail_id, name, geometry_text, *others = row
        geometry = orjson.loads(geometry_text)
        own = tuple(activities.get(trail_id, ()))
        trails.append(TrailRow(trail_id, name, geometry, *others, activities=own))
    points = [
        PointRow(*row)
        for row in Point.objects.filter(trail_system_id=system_id)
        .order_by("-created_on", "id")
        .values_list(*_POINT_COLUMNS)
    ]

    active = Update.objects.active(now).filter(trail_system_id=system_id)
    named_trails: dict[str, list[str]] = defaultdict(list)
    for update_id, trail_id in Update.trails.through.objects.filter(
        update__in=active, trail__trashed_on__isnull=True
    ).values_list("update_id", "trail_id"):
        named_trails[update_id].append(trail_id)
    updates = []
    for row in active.values_list(*_UPDATE_COLUMNS):
        columns = dict(zip(_UPDATE_COLUMNS, row, strict=True))
        updates.append(UpdateRow(**columns, trail_ids=tuple(named_trails[columns["id"]])))
    return SystemRows(language, trails, points, updates)


def load_active_systems() -> list[dict]:
    """Systems on the public map (neither inactive nor blocked), by name, with the
    statistics the last compile stored."""
    return list(
        TrailSystem.objects.filter(inactive=False, blocked=False)
        .order_by("name", "id")
        .values(*_SYSTEM_COLUMNS)
    )
