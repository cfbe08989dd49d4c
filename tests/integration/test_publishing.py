"""Publishing in the production topology: PostgreSQL, Redis and a real Celery worker."""

import time
from itertools import pairwise

import orjson
import pytest
from django.core.files.storage import default_storage
from django.db import transaction
from django.utils import timezone

from publishing.compile import compile_rows
from publishing.models import CompileRequest
from publishing.scheduling import record_compile_request
from publishing.selectors import load_system_rows
from publishing.tasks import SETTLE_SECONDS
from tests.factories import TrailActivityFactory, TrailFactory, TrailSystemFactory
from tests.integration.conftest import wait_for
from trails.models import Trail, TrailSystem

pytestmark = pytest.mark.integration


def set_status(trail: Trail, status: str) -> None:
    """A trail write as the services do it: the row and the compile request in one commit."""
    with transaction.atomic():
        Trail.objects.filter(pk=trail.pk).update(status=status)
        record_compile_request(trail.trail_system_id, reason="status")


def published(system_id: str) -> tuple[str, dict]:
    path = TrailSystem.objects.values_list("geo_json_path", flat=True).get(pk=system_id)
    with default_storage.open(path, "rb") as stored:
        return path, orjson.loads(stored.read())


def all_served(system_id: str) -> bool:
    return not CompileRequest.objects.pending().filter(trail_system_id=system_id).exists()


def trail_statuses(collection: dict) -> dict[str, str]:
    return {f["properties"]["trailId"]: f["properties"]["status"] for f in collection["features"]}


def system_of_three_trails() -> TrailSystem:
    system = TrailSystemFactory()
    for _ in range(3):
        TrailActivityFactory(trail=TrailFactory(trail_system=system, status="None"))
    return system


@pytest.fixture
def system():
    return system_of_three_trails()


def test_a_write_is_published_and_the_previous_file_kept_for_its_readers(celery_worker, system):
    trail = system.trails.first()
    set_status(trail, "Closed")
    wait_for(lambda: all_served(system.pk))
    first_path, first = published(system.pk)
    assert trail_statuses(first)[trail.pk] == "Closed"

    set_status(trail, "Caution")
    wait_for(lambda: all_served(system.pk))

    path, collection = published(system.pk)
    assert path != first_path
    assert trail_statuses(collection)[trail.pk] == "Caution"
    assert TrailSystem.objects.get(pk=system.pk).caution_trails == 1
    with default_storage.open(first_path, "rb") as stored:
        assert orjson.loads(stored.read()) == first


def test_a_burst_of_200_writes_coalesces_into_few_compiles_of_the_final_rows(celery_worker, system):
    trails = list(system.trails.all())
    statuses = ["Open", "Caution", "Closed", "None"]
    started = time.monotonic()
    for i in range(200):
        set_status(trails[i % len(trails)], statuses[i % len(statuses)])
    burst_seconds = time.monotonic() - started

    wait_for(lambda: all_served(system.pk))

    _, collection = published(system.pk)
    now = timezone.now()
    assert collection == compile_rows(load_system_rows(system.pk, now), now).feature_collection
    compiles = sorted(
        CompileRequest.objects.filter(trail_system=system)
        .order_by()
        .values_list("started_on", "done_on", "published_path")
        .distinct()
    )
    # Writes coalesce: while writes keep coming, a system's compiles start at least
    # SETTLE_SECONDS apart, so a burst is compiled at most once per such window, not once per
    # write. The slack covers the compiles at either end of the burst.
    assert len(compiles) <= burst_seconds / SETTLE_SECONDS + 4
    # One compile at a time: each starts after the previous one finished.
    assert all(later[0] >= earlier[1] for earlier, later in pairwise(compiles))
