"""No change is lost when the broker goes away or a worker dies in the middle of a compile."""

import time

import psycopg
import pytest
from django.core.files.storage import default_storage
from django.utils import timezone

from publishing.publisher import sweep_replaced_files
from publishing.tasks import sweep_pending_compiles
from tests.factories import TrailActivityFactory, TrailFactory, TrailSystemFactory
from tests.integration.conftest import wait_for, worker_environment
from tests.integration.test_publishing import all_served, published, set_status, trail_statuses
from trails.models import TrailSystem

pytestmark = pytest.mark.integration


@pytest.fixture
def system():
    system = TrailSystemFactory()
    TrailActivityFactory(trail=TrailFactory(trail_system=system, status="None"))
    return system


def test_a_write_during_a_broker_outage_is_published_once_the_broker_is_back(
    private_broker, start_worker, system
):
    start_worker()
    trail = system.trails.get()
    set_status(trail, "Closed")
    wait_for(lambda: all_served(system.pk))

    private_broker.stop()
    started = time.monotonic()
    set_status(trail, "Caution")  # commits; queueing the compile fails quietly
    assert time.monotonic() - started < 5
    assert TrailSystem.objects.get(pk=system.pk).closed_trails == 1
    assert not all_served(system.pk)

    private_broker.start()
    sweep_pending_compiles.delay()  # what beat does every 30 seconds

    wait_for(lambda: all_served(system.pk))
    assert trail_statuses(published(system.pk)[1])[trail.pk] == "Caution"


def test_a_worker_killed_mid_compile_leaves_the_old_file_and_the_next_compile_completes(
    broker, start_worker, system, settings
):
    worker = start_worker()
    trail = system.trails.get()
    set_status(trail, "Closed")
    wait_for(lambda: all_served(system.pk))
    old_path, _ = published(system.pk)
    maps = settings.MEDIA_ROOT / old_path.rsplit("/", 1)[0]

    # Another session holds the trail system row, so the next compile writes its file and
    # then waits to switch the row to it: the worker is killed at that moment.
    with psycopg.connect(worker_environment(settings.MEDIA_ROOT)["DATABASE_URL"]) as holder:
        holder.execute(
            "SELECT 1 FROM trails_trailsystem WHERE id = %s FOR NO KEY UPDATE", [system.pk]
        )
        set_status(trail, "Caution")
        wait_for(lambda: len(list(maps.glob("*.geojson"))) == 2)
        worker.kill()
        holder.rollback()

    system.refresh_from_db()
    assert system.geo_json_path == old_path
    assert system.closed_trails == 1
    assert default_storage.exists(old_path)
    assert not all_served(system.pk)

    start_worker()
    sweep_pending_compiles.delay()

    wait_for(lambda: all_served(system.pk))
    new_path, collection = published(system.pk)
    assert new_path != old_path
    assert trail_statuses(collection)[trail.pk] == "Caution"
    # The replaced file is still served to whoever was handed its name; once its grace has
    # passed, it goes with the killed compile's file, which nothing ever published.
    assert default_storage.exists(old_path)
    assert len(list(maps.glob("*.geojson"))) == 3
    sweep_replaced_files(timezone.now() + settings.MAP_FILE_GRACE)
    # With their compressed copies.
    assert sorted(f.name for f in maps.iterdir())[0] == new_path.rsplit("/", 1)[1]
    assert {f.name.split(".")[0] for f in maps.iterdir()} == {new_path.rsplit("/", 1)[1][:-8]}
