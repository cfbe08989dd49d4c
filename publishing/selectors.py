"""Reads what a compile needs with a fixed number of queries, whatever the system's size.

`values_list()` instead of model instances, and the geometry fetched as text and decoded
with orjson (Django's JSONField decodes with the standard library, several times slower):
most of the time of reading a large system is spent on its geometry, so an incremental compile
reads it only for the trails it encodes again (`load_geometries`).
"""

from collections import defaultdict
from dataclasses import dataclass, fields
from datetime import datetime, timedelta

import orjson
from django.db import connection
from django.db.models import DateTimeField, ExpressionWrapper, Subquery, TextField, Value
from django.db.models.expressions import RawSQL
from django.db.models.functions import Cast, Concat

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


@dataclass(frozen=True, slots=True)
class SystemState:
    """What a compile reads first, in one statement: the database snapshot, the trails the
    change log names since an earlier snapshot, the system's language, and a digest of its
    live points and of its unexpired updates (with the live trails they name). A kept
    compile whose digest is the same reuses its rows instead of reading them again."""

    snapshot: str
    changed: set[str]
    language: str
    points_digest: str
    updates_digest: str


def _digest(rows) -> str:
    """A digest of a one-column query's text values, in any order."""
    sql, params = rows.query.sql_with_params()
    return (
        f"(SELECT md5(coalesce(string_agg(v, ',' ORDER BY v), '')) FROM ({sql}) AS d (v))",
        params,
    )


def load_system_state(system_id: str, now: datetime, since: str | None = None) -> SystemState:
    """The current snapshot; with `since`, the system's trails written, deleted or moved out
    of it by transactions that the earlier snapshot `since` could not see
    (publishing/migrations/0005_trail_change_log.py) and by this transaction (a snapshot does
    not list its own): along the log's index, from the oldest transaction running then. One
    statement, so everything is read under exactly the snapshot returned, before the rows
    it lets a compile reuse (a change committed later gives another digest next time)."""
    active = Update.objects.active(now).filter(trail_system_id=system_id)
    points, points_params = _digest(_points(system_id).annotate(v=_row_version()).values_list("v"))
    updates, updates_params = _digest(
        active.annotate(v=_row_version())
        .values_list("v")
        .union(
            Update.trails.through.objects.filter(
                update__in=active, trail__trashed_on__isnull=True
            ).values_list(Concat("update_id", Value(":"), "trail_id", output_field=TextField()))
        )
    )
    changes, changes_params = "ARRAY[]::text[]", []
    if since is not None:
        changes = (
            "ARRAY(SELECT DISTINCT trail_id FROM publishing_trail_change WHERE system_id = %s"
            " AND tx >= pg_snapshot_xmin(%s::pg_snapshot)"
            " AND (NOT pg_visible_in_snapshot(tx, %s::pg_snapshot)"
            " OR tx = pg_current_xact_id_if_assigned()))"
        )
        changes_params = [system_id, since, since]
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT pg_current_snapshot()::text, {changes},"
            " (SELECT language FROM trails_trailsystem WHERE id = %s),"
            f" {points}, {updates}",
            [*changes_params, system_id, *points_params, *updates_params],
        )
        snapshot, changed, language, points_digest, updates_digest = cursor.fetchone()
    return SystemState(snapshot, set(changed), language, points_digest, updates_digest)


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


def _trail_rows(
    trails, activities, *, with_geometry: bool
) -> tuple[dict[str, tuple], list[TrailRow]]:
    """The trails' places (`order`, created on), in the queryset's order, and their rows."""
    by_trail: dict[str, list[ActivityRow]] = defaultdict(list)
    for trail_id, value, status, difficulty in activities.order_by(
        "trail_id", "position", "id"
    ).values_list("trail_id", "value", "status", "difficulty"):
        by_trail[trail_id].append(ActivityRow(value, status, difficulty))
    geometry = Cast("geometry", TextField()) if with_geometry else Value(None, TextField())
    places, rows = {}, []
    for row in trails.annotate(
        geometry_text=geometry,
        categories_text=Cast("categories", TextField()),
        version=_row_version(),
    ).values_list("geometry_text", "version", "created_on", *_TRAIL_COLUMNS):
        geometry_text, version, created_on, *values = row
        columns = dict(zip(_TRAIL_COLUMNS, values, strict=True))
        columns["categories"] = orjson.loads(columns.pop("categories_text"))
        places[columns["id"]] = (columns["order"], created_on)
        rows.append(
            TrailRow(
                **columns,
                geometry=orjson.loads(geometry_text) if geometry_text is not None else None,
                activities=tuple(by_trail.get(columns["id"], ())),
                version=version,
            )
        )
    return places, rows


def load_live_trails(
    system_id: str, trail_ids: list[str] | None = None
) -> tuple[dict[str, tuple], dict[str, TrailRow]]:
    """The system's live trails (among `trail_ids` when given) in their list order, each with
    what places it there (`order`, created on), and their rows with activities and geometry
    by id; two statements."""
    trails = _live_trails(system_id)
    activities = TrailActivity.objects.filter(
        trail__trail_system_id=system_id, trail__trashed_on__isnull=True
    )
    if trail_ids is not None:
        trails = trails.filter(pk__in=trail_ids)
        activities = activities.filter(trail_id__in=trail_ids)
    places, rows = _trail_rows(trails, activities, with_geometry=True)
    return places, {row.id: row for row in rows}


def load_geometries(trail_ids: list[str]) -> dict[str, dict]:
    """The geometry of each trail named (trashed too: one trashed since its row was read is
    published as read, and its trash starts a compile of its own)."""
    rows = (
        Trail._base_manager.filter(pk__in=trail_ids)
        .annotate(geometry_text=Cast("geometry", TextField()))
        .values_list("id", "geometry_text")
    )
    return {trail_id: orjson.loads(text) for trail_id, text in rows}


def _points(system_id: str):
    return Point.objects.filter(trail_system_id=system_id)


def load_points(system_id: str) -> list[PointRow]:
    """The system's live points, newest first."""
    return [
        PointRow(**dict(zip(_POINT_COLUMNS, row, strict=True)))
        for row in _points(system_id).order_by("-created_on", "id").values_list(*_POINT_COLUMNS)
    ]


def load_updates(system_id: str, now: datetime) -> list[UpdateRow]:
    """The system's unexpired updates with the live trails they name."""
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
    return updates


def load_system_rows(system_id: str, now: datetime) -> SystemRows:
    """Live trails in their list order with their activities and geometry, live points
    newest first, and the unexpired updates with the trails they name."""
    language = TrailSystem.objects.values_list("language", flat=True).get(pk=system_id)
    trails = list(load_live_trails(system_id)[1].values())
    return SystemRows(language, trails, load_points(system_id), load_updates(system_id, now))


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


def load_paths_replaced_since_previous(
    system_id: str, done: datetime, grace: timedelta
) -> list[str]:
    """The system's map files replaced by a compile done in (previous - grace, done - grace],
    `previous` being when the compile before the one done at `done` was done, as recorded: the
    file each such compile found published, that of the compile done before it. One statement
    (it runs after every compile)."""
    previous = Subquery(
        _publications(system_id).filter(done_on__lt=done).order_by("-done_on").values("done_on")[:1]
    )
    since = ExpressionWrapper(previous - Value(grace), output_field=DateTimeField())
    last_before = Subquery(
        _publications(system_id)
        .filter(done_on__lte=since)
        .order_by("-done_on")
        .values("done_on")[:1]
    )
    # The union's parts are neither ordered nor sliced (SQLite allows neither there); UNION
    # makes a compile's rows one.
    replacing = (
        _publications(system_id)
        .filter(done_on__gt=since, done_on__lte=done - grace)
        .annotate(replacing=Value(True))
        .order_by()
    )
    before = (
        _publications(system_id)
        .filter(done_on=last_before)
        .annotate(replacing=Value(False))
        .order_by()
    )
    rows = list(before.union(replacing).order_by("done_on"))
    if not any(replacing for _, _, replacing in rows):
        return []
    return [path for _, path, _ in rows[:-1]]


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
