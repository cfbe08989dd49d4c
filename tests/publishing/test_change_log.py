"""A compile after changes reads what the change log names since the last compile, and
publishes the bytes a full compile of the same rows gives, whatever the changes were: edits,
activities, trash and restore, deletions, moves to another system, new trails, new order,
updates naming trails, the system's language, points and updates added, edited, expired
and removed (read again only when their digest changed).

Each change commits on its own (as the service's writes do), so the log's snapshots are
exercised as in production, where a change is compiled after its commit.
"""

import random
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from publishing.compile import compile_rows
from publishing.publisher import (
    compile_incrementally,
    delete_old_trail_changes,
    kept_compiles,
    paused_gc,
)
from publishing.selectors import load_system_rows
from tests.factories import (
    PointFactory,
    TrailActivityFactory,
    TrailFactory,
    TrailSystemFactory,
    UpdateFactory,
    line,
)
from trails.models import Point, Trail, TrailActivity, TrailSystem
from updates.models import Update

pytestmark = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="the change log is PostgreSQL's"
)

STATUSES = ("Open", "Caution", "Closed", "None")
ACTIVITIES = ("skiing", "snowshoeing", "fat-biking")


def full_compile(system_id: str, now) -> bytes:
    return compile_rows(load_system_rows(system_id, now), now).body


def change(rng: random.Random, system, other) -> str:
    """One random change to the system's trails, committed; returns what it was."""
    live = list(Trail.objects.filter(trail_system=system).order_by("id"))
    trashed = list(Trail._base_manager.filter(trail_system=system, trashed_on__isnull=False))
    kind = rng.choice(
        ("status", "status", "activity", "activity gone", "trash", "restore", "delete",
         "move out", "move in", "add", "order", "geometry", "hide", "distance", "update",
         "language", "point", "point edit", "point gone", "update edit", "update expired",
         "update unlinked")
    )  # fmt: skip
    points = list(Point.objects.filter(trail_system=system).order_by("id"))
    updates = list(Update.objects.filter(trail_system=system).order_by("id"))
    if kind.startswith("point ") and not points:
        kind = "point"
    if kind.startswith("update ") and not updates:
        kind = "update"
    if kind in ("restore",) and not trashed:
        kind = "add"
    if kind not in ("add", "restore", "move in") and not live:
        kind = "add"
    trail = rng.choice(live) if live else None
    if kind == "status":
        Trail.objects.filter(pk=trail.pk).update(status=rng.choice(STATUSES))
    elif kind == "activity":
        TrailActivity.objects.update_or_create(
            trail=trail,
            value=rng.choice(ACTIVITIES),
            defaults={"status": rng.choice(STATUSES[:3])},
        )
    elif kind == "activity gone":
        TrailActivity.objects.filter(trail=trail).delete()
    elif kind == "trash":
        Trail.objects.filter(pk=trail.pk).update(trashed_on=timezone.now())
    elif kind == "restore":
        Trail._base_manager.filter(pk=rng.choice(trashed).pk).update(trashed_on=None)
    elif kind == "delete":
        Trail._base_manager.filter(pk=trail.pk).delete()
    elif kind == "move out":
        Trail.objects.filter(pk=trail.pk).update(trail_system=other)
    elif kind == "move in":
        moved = Trail.objects.filter(trail_system=other).first()
        if moved is None:
            moved = TrailFactory(trail_system=other)
        Trail.objects.filter(pk=moved.pk).update(trail_system=system)
    elif kind == "add":
        added = TrailFactory(trail_system=system, order=rng.randrange(10))
        TrailActivityFactory(trail=added, value=rng.choice(ACTIVITIES))
    elif kind == "order":
        Trail.objects.filter(pk=trail.pk).update(order=rng.randrange(10))
    elif kind == "geometry":
        shifted = line(-113.9 + rng.random() / 100, 45.6, n=rng.randrange(2, 6))
        Trail.objects.filter(pk=trail.pk).update(geometry=shifted)
    elif kind == "update":
        UpdateFactory(trail_system=system, type="surfaceConditions", conditions=["icy"]).trails.add(
            trail
        )
    elif kind == "language":
        TrailSystem.objects.filter(pk=system.pk).update(
            language="fr" if rng.random() < 0.5 else "en"
        )
    elif kind == "point":
        PointFactory(trail_system=system, name=f"Point {rng.randrange(100)}")
    elif kind == "point edit":
        Point.objects.filter(pk=rng.choice(points).pk).update(status=rng.choice(STATUSES[:3]))
    elif kind == "point gone":
        Point.objects.filter(pk=rng.choice(points).pk).delete()
    elif kind == "update edit":
        Update.objects.filter(pk=rng.choice(updates).pk).update(conditions=["powder"])
    elif kind == "update expired":
        Update.objects.filter(pk=rng.choice(updates).pk).update(
            expiration_date=timezone.now() - timedelta(minutes=1)
        )
    elif kind == "update unlinked":
        rng.choice(updates).trails.clear()
    elif kind == "hide":
        Trail.objects.filter(pk=trail.pk).update(hidden=not trail.hidden)
    else:
        Trail.objects.filter(pk=trail.pk).update(distance=rng.random() * 5)
    return kind


def test_random_changes_compile_to_the_bytes_of_a_full_compile(transactional_db):
    rng = random.Random(32)
    system, other = TrailSystemFactory(), TrailSystemFactory()
    for i in range(12):
        TrailActivityFactory(trail=TrailFactory(trail_system=system, order=i % 4))
    kept_compiles.forget(system.pk)
    done = []
    with paused_gc():
        for _ in range(120):
            for _ in range(rng.choice((1, 1, 2, 5))):  # one change, or a burst between compiles
                done.append(change(rng, system, other))
            now = timezone.now()
            body = compile_incrementally(system.pk, now)[1].body
            assert body == full_compile(system.pk, now), done[-5:]
    assert {"delete", "move out", "move in", "add", "order", "restore", "update"} <= set(done)
    assert {"point", "point edit", "point gone", "update edit", "update expired"} <= set(done)
    assert "update unlinked" in done


def test_a_compile_after_one_change_reads_that_trail_only(transactional_db):
    system = TrailSystemFactory()
    trails = [TrailFactory(trail_system=system) for _ in range(30)]
    now = timezone.now()
    compile_incrementally(system.pk, now)
    Trail.objects.filter(pk=trails[7].pk).update(status="Closed")

    with CaptureQueriesContext(connection) as captured:
        body = compile_incrementally(system.pk, now)[1].body

    trail_reads = [q["sql"] for q in captured if 'FROM "trails_trail"' in q["sql"]]
    assert trail_reads and all(trails[7].pk in sql for sql in trail_reads)
    assert all(trails[8].pk not in sql for sql in trail_reads)
    assert body == full_compile(system.pk, now)


def test_the_log_is_pruned_of_what_no_kept_compile_needs(transactional_db):
    TrailFactory(trail_system=TrailSystemFactory())

    assert delete_old_trail_changes(now=timezone.now()) == 0
    assert delete_old_trail_changes(now=timezone.now() + timedelta(days=1, seconds=1)) >= 1


def test_the_embedded_defaults_background_process_prunes_the_log_too(transactional_db):
    """`make run` has no beat: its `repeat` runs the command instead (docs/operators)."""
    TrailFactory(trail_system=TrailSystemFactory())
    out = StringIO()
    call_command("prune_trail_change_log", stdout=out)
    assert out.getvalue().strip() == "Change log rows deleted: 0"
    with connection.cursor() as cursor:
        cursor.execute("UPDATE publishing_trail_change SET logged_on = now() - interval '2 days'")
        logged = cursor.rowcount
    call_command("prune_trail_change_log", stdout=out)
    assert logged >= 1
    assert out.getvalue().splitlines()[-1] == f"Change log rows deleted: {logged}"
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM publishing_trail_change")
        assert cursor.fetchone() == (0,)
