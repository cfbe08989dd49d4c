"""Reads what a compile needs with a fixed number of queries, whatever the system's size.

`values_list()` instead of model instances, and the geometry fetched as text and decoded
with orjson (Django's JSONField decodes with the standard library, several times slower):
most of the time of reading a large system is spent on its geometry, so an incremental compile
reads it only for the trails it encodes again (`load_geometries`).
"""

from collections import defaultdict
from dataclasses import fields
from datetime import datetime

import orjson
from django.db import connection
from django.db.models import TextField, Value
from django.db.models.expressions import RawSQL
from django.db.models.functions import Cast

from publishing.compile import ActivityRow, PointRow, SystemRows, TrailRow, UpdateRow
from publishing.models import CompileRequest
from trails.fields import POINT, PUBLISHED, TRAIL
from trails.models import Point, Trail, TrailActivity, TrailSystem
from updates.models import Update

# The published fields (trails.fields), categories read as text for orjson.
_TRAIL_COLUMNS = tuple(
    "categories_text" if name == "categories" else name for name in ("id", *TRAIL.names(PUBLISHED))
)
_SYSTEM_COLUMNS = (
    "id", "name", "lat", "lng", "open_trails", "caution_trails", "closed_trails",
    "activity_totals", "hidden_activities",
)  # fmt: skip
_POINT_COLUMNS = ("id", "lat", "lng", *POINT.names(PUBLISHED))
_UPDATE_COLUMNS = tuple(f.name for f in fields(UpdateRow) if f.name != "trail_ids")


def rows_are_versioned() -> bool:
    """PostgreSQL gives each row version a new (ctid, xmin), and a trigger gives a trail a new
    one when its activities change (trails/migrations/0004_row_version_triggers.py); the
    embedded SQLite has neither, so there every trail is read and encoded on every compile."""
    return connection.vendor == "postgresql"


def _row_version():
    if rows_are_versioned():
        return RawSQL("ctid::text || xmin::text", ())
    return Value("")


def _live_trails(system_id: str):
    return Trail.objects.filter(trail_system_id=system_id).order_by("order", "created_on", "id")


def load_snapshot() -> str:
    """The database's current snapshot: which transactions a read made now can see."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_current_snapshot()::text")
        return cursor.fetchone()[0]


def load_snapshot_and_changes(system_id: str, since: str) -> tuple[str, set[str]]:
    """The current snapshot, and the system's trails written, deleted or moved out of it by
    transactions that the earlier snapshot `since` could not see
    (publishing/migrations/0005_trail_change_log.py) and by this transaction (a snapshot does
    not list its own): along the log's index, from the oldest transaction running then. One
    statement, so the log is read under exactly the snapshot returned."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_current_snapshot()::text, ARRAY(SELECT DISTINCT trail_id"
            " FROM publishing_trail_change WHERE system_id = %s"
            " AND tx >= pg_snapshot_xmin(%s::pg_snapshot)"
            " AND (NOT pg_visible_in_snapshot(tx, %s::pg_snapshot)"
            " OR tx = pg_current_xact_id_if_assigned()))",
            [system_id, since, since],
        )
        snapshot, changed = cursor.fetchone()
        return snapshot, set(changed)


def load_trail_places(system_id: str, trail_ids: list[str] | None = None) -> dict[str, tuple]:
    """The system's live trails (among `trail_ids` when given) in their list order, each with
    what places it there: (`order`, created on)."""
    trails = _live_trails(system_id)
    if trail_ids is not None:
        trails = trails.filter(pk__in=trail_ids)
    rows = trails.values_list("id", "order", "created_on")
    sql, params = rows.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return {trail_id: (order, created) for trail_id, order, created in cursor.fetchall()}


def _trail_rows(trails, activities, *, with_geometry: bool) -> list[TrailRow]:
    by_trail: dict[str, list[ActivityRow]] = defaultdict(list)
    for trail_id, value, status, difficulty in activities.order_by(
        "trail_id", "position", "id"
    ).values_list("trail_id", "value", "status", "difficulty"):
        by_trail[trail_id].append(ActivityRow(value, status, difficulty))
    geometry = Cast("geometry", TextField()) if with_geometry else Value(None, TextField())
    rows = []
    for row in trails.annotate(
        geometry_text=geometry,
        categories_text=Cast("categories", TextField()),
        version=_row_version(),
    ).values_list("geometry_text", "version", *_TRAIL_COLUMNS):
        geometry_text, version, *values = row
        columns = dict(zip(_TRAIL_COLUMNS, values, strict=True))
        columns["categories"] = orjson.loads(columns.pop("categories_text"))
        rows.append(
            TrailRow(
                **columns,
                geometry=orjson.loads(geometry_text) if geometry_text is not None else None,
                activities=tuple(by_trail.get(columns["id"], ())),
                version=version,
            )
        )
    return rows


def load_trails(trail_ids: list[str]) -> dict[str, TrailRow]:
    """The named trails with their activities and geometry, by id."""
    rows = _trail_rows(
        Trail._base_manager.filter(pk__in=trail_ids),
        TrailActivity.objects.filter(trail_id__in=trail_ids),
        with_geometry=True,
    )
    return {row.id: row for row in rows}


def load_geometries(trail_ids: list[str]) -> dict[str, dict]:
    """The geometry of each trail named (trashed too: one trashed since its row was read is
    published as read, and its trash starts a compile of its own)."""
    rows = (
        Trail._base_manager.filter(pk__in=trail_ids)
        .annotate(geometry_text=Cast("geometry", TextField()))
        .values_list("id", "geometry_text")
    )
    return {trail_id: orjson.loads(text) for trail_id, text in rows}


def load_system_rows(
    system_id: str, now: datetime, trails: list[TrailRow] | None = None
) -> SystemRows:
    """Live trails in their list order with their activities and geometry (or the `trails`
    given), live points newest first, and the unexpired updates with the trails they name."""
    language = TrailSystem.objects.values_list("language", flat=True).get(pk=system_id)
    if trails is None:
        trails = _trail_rows(
            _live_trails(system_id),
            TrailActivity.objects.filter(
                trail__trail_system_id=system_id, trail__trashed_on__isnull=True
            ),
            with_geometry=True,
        )
    points = [
        PointRow(**dict(zip(_POINT_COLUMNS, row, strict=True)))
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


def load_recently_compiled_systems(since: datetime) -> list[tuple[str, str]]:
    """(id, current map file) of the systems compiled since `since`."""
    return list(
        TrailSystem.objects.filter(compiled_on__gte=since).values_list("id", "geo_json_path")
    )


def load_publication_state(system_id: str) -> tuple[str, datetime | None, bool]:
    """The system's current file, when the compile that published it started, and whether a
    write waits for a compile (a newer file is coming)."""
    path, compiled_on = TrailSystem.objects.filter(pk=system_id).values_list(
        "geo_json_path", "compiled_on"
    ).first() or ("", None)
    pending = CompileRequest.objects.pending().filter(trail_system_id=system_id).exists()
    return path, compiled_on, pending


def _publications(system_id: str):
    """The compiles of the system as (done_on, published_path), by time: a compile's requests
    share both (a row each; `distinct()` makes it one), and names never repeat. Read along
    the index of done requests, so a system's long history costs nothing."""
    return (
        CompileRequest.objects.filter(trail_system_id=system_id, done_on__isnull=False)
        .exclude(published_path="")
        .values_list("done_on", "published_path")
        .order_by("done_on")
    )


def load_previous_publication_time(system_id: str, done: datetime) -> datetime | None:
    """When the compile before the one done at `done` was done."""
    previous = _publications(system_id).filter(done_on__lt=done).order_by("-done_on").first()
    return previous[0] if previous else None


def load_paths_replaced_between(system_id: str, since: datetime, until: datetime) -> list[str]:
    """The system's map files replaced by a compile done in (since, until], as recorded: the
    file each such compile found published, that of the compile done before it."""
    replacing = list(
        _publications(system_id).filter(done_on__gt=since, done_on__lte=until).distinct()
    )
    if not replacing:
        return []
    before = _publications(system_id).filter(done_on__lte=since).order_by("-done_on").first()
    return [path for _, path in ([before] if before else []) + replacing[:-1]]


def load_replacement_times(
    system_id: str, paths: list[str], written_since: datetime
) -> dict[str, datetime | None]:
    """When each file among `paths` (written since `written_since`, so done since then too)
    that a compile published was replaced: when the compile that published the next of them
    was done (the next compile, unless its file is gone, which only makes the time later); None
    for the last of them. Paths no compile published are left out."""
    published = list(
        _publications(system_id)
        .filter(done_on__gte=written_since, published_path__in=paths)
        .distinct()
    )
    replaced = [done for done, _ in published[1:]] + [None]
    return {path: replaced_on for (_, path), replaced_on in zip(published, replaced, strict=True)}
