import pytest

from core.actors import Actor, Via
from publishing.models import CompileRequest
from tests.factories import PointFactory, TrailFactory
from trails.models import Point, StatusChange, Trail
from trails.trash import (
    TrashError,
    delete_trail,
    delete_trails,
    restore_point,
    restore_trail,
    trash_point,
    trash_points,
    trash_trail,
    trash_trails,
)

pytestmark = pytest.mark.django_db


def web(uid: str) -> Actor:
    return Actor(uid, Via.WEB_APP)


@pytest.mark.parametrize(
    ("factory", "model", "name", "trash", "restore"),
    [
        (TrailFactory, Trail, "trail", trash_trail, restore_trail),
        (PointFactory, Point, "point", trash_point, restore_point),
    ],
)
def test_trash_then_restore_each_queue_a_compile(factory, model, name, trash, restore):
    obj = factory()
    system = obj.trail_system

    trash(**{name: obj}, actor=web("uid-manager"))

    assert not model.objects.filter(pk=obj.pk).exists()
    trashed = model.trash.get(pk=obj.pk)
    assert trashed.trashed_by == "uid-manager"
    assert trashed.updated_by == "uid-manager"
    assert CompileRequest.objects.filter(trail_system=system).count() == 1

    restore(**{name: trashed}, actor=web("uid-admin"))

    restored = model.objects.get(pk=obj.pk)
    assert restored.trashed_on is None
    assert restored.trashed_by == ""
    assert restored.updated_by == "uid-admin"
    assert CompileRequest.objects.filter(trail_system=system).count() == 2


def test_trashing_twice_or_restoring_a_live_row_is_refused_without_a_compile():
    trail = TrailFactory()
    with pytest.raises(TrashError, match="not in the trash"):
        restore_trail(trail=trail, actor=web("uid-a"))
    trash_trail(trail=trail, actor=web("uid-a"))
    with pytest.raises(TrashError, match="already in the trash"):
        trash_trail(trail=trail, actor=web("uid-a"))
    assert CompileRequest.objects.count() == 1


def test_a_row_read_before_someone_else_trashed_it_is_refused_and_recorded_once():
    trail = TrailFactory()
    read_earlier = Trail.objects.get(pk=trail.pk)
    trash_trail(trail=trail, actor=web("uid-a"))
    with pytest.raises(TrashError, match="already in the trash"):
        trash_trail(trail=read_earlier, actor=web("uid-b"))
    assert Trail.trash.get(pk=trail.pk).trashed_by == "uid-a"
    assert trail.status_changes.filter(field="trashed").count() == 1


def test_a_trashed_trail_keeps_its_activities_when_restored():
    trail = TrailFactory()
    trail.activities.create(value="hiking", status="Open")
    trash_trail(trail=trail, actor=web("uid-a"))
    restore_trail(trail=Trail.trash.get(pk=trail.pk), actor=web("uid-a"))
    assert list(Trail.objects.get(pk=trail.pk).activities.values_list("value", flat=True)) == [
        "hiking"
    ]


def test_trashing_many_trails_is_one_compile_request_per_system():
    first = TrailFactory()
    trails = [first, *(TrailFactory(trail_system=first.trail_system) for _ in range(3))]
    elsewhere = TrailFactory()

    outcome = trash_trails(trails=[*trails, elsewhere], actor=web("uid-a"))

    assert outcome.done == [*trails, elsewhere]
    assert outcome.refused == []
    assert Trail.trash.filter(trashed_by="uid-a").count() == 5
    assert CompileRequest.objects.filter(trail_system=first.trail_system).count() == 1
    assert CompileRequest.objects.filter(trail_system=elsewhere.trail_system).count() == 1
    assert StatusChange.objects.filter(field="trashed", uid="uid-a").count() == 5


def test_a_bulk_move_leaves_a_row_already_moved_and_says_why():
    kept, gone = PointFactory(), PointFactory()
    trash_point(point=gone, actor=web("uid-other"))

    outcome = trash_points(points=[kept, gone], actor=web("uid-a"))

    assert outcome.done == [kept]
    [(row, error)] = outcome.refused
    assert (row, error.message) == (gone, f"Point {gone.pk} is already in the trash.")
    assert Point.trash.get(pk=gone.pk).trashed_by == "uid-other"


def test_only_trashed_rows_are_deleted_for_good():
    live, trashed = TrailFactory(), TrailFactory()
    trash_trail(trail=trashed, actor=web("uid-a"))

    outcome = delete_trails(trails=[live, Trail.trash.get(pk=trashed.pk)], actor=web("uid-a"))

    assert [row.pk for row in outcome.done] == [trashed.pk]
    assert [error.message for _, error in outcome.refused] == [
        f"Trail {live.pk} is not in the trash."
    ]
    assert Trail.objects.filter(pk=live.pk).exists()
    assert not Trail.all_objects.filter(pk=trashed.pk).exists()
    with pytest.raises(TrashError, match="not in the trash"):
        delete_trail(trail=live, actor=web("uid-a"))
