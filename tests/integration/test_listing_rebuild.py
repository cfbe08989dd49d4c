"""The legacy all-systems file is rebuilt once per burst, not once per compile: every compile
that moves a system's derived location asks for a rebuild, and one coming serves them all;
a change committed after a rebuild started queues the next, so the file ends with it."""

import orjson
import pytest

from publishing.models import CompileRequest
from publishing.publisher import compile_pending, read_all_systems_file
from publishing.tasks import rebuild_all_systems_file
from tests.factories import TrailFactory, TrailSystemFactory, line
from trails.models import TrailSystem

pytestmark = pytest.mark.integration

REBUILD = "publishing.tasks.rebuild_all_systems_file"


def unplaced_system(start_lng: float) -> TrailSystem:
    """A system no manager placed, with a trail: its compile gives it a location."""
    system = TrailSystemFactory(lat=None, lng=None)
    TrailFactory(trail_system=system, geometry=line(start_lng=start_lng))
    return system


def compile_now(system: TrailSystem, capture) -> None:
    """A compile as the worker makes it, its after-commit work run."""
    CompileRequest.objects.create(trail_system=system, reason="test")
    with capture(execute=True):
        assert compile_pending(system.pk)


def listed(system: TrailSystem) -> bool:
    collection = orjson.loads(read_all_systems_file())
    return any(f["properties"]["tsId"] == system.pk for f in collection["features"])


@pytest.mark.django_db
def test_many_systems_compiled_at_once_queue_one_rebuild_and_a_later_change_another(
    broker, tasks_in, django_capture_on_commit_callbacks
):
    waiting = tasks_in(broker)
    systems = [unplaced_system(-113.0 - i) for i in range(8)]

    for system in systems:
        compile_now(system, django_capture_on_commit_callbacks)

    assert len(waiting(REBUILD)) == 1
    assert rebuild_all_systems_file()  # as the worker runs it
    assert all(listed(system) for system in systems)

    later = unplaced_system(-100.0)
    compile_now(later, django_capture_on_commit_callbacks)

    assert len(waiting(REBUILD)) == 2  # the first, run above, and one for the later change
    assert rebuild_all_systems_file()
    assert listed(later)
