"""Freshness across processes: the worker's compile commit is seen by this process's very next
legacy request, and compile locks are per system (never two of one system, different systems
at once)."""

import threading

import pytest
from django.db import connection, transaction

from legacy import listener
from publishing.models import CompileRequest
from publishing.publisher import try_lock_system
from publishing.storage import absolute_public_url
from publishing.tasks import sweep_pending_compiles
from tests.factories import TrailActivityFactory, TrailFactory, TrailSystemFactory
from tests.integration.conftest import wait_for
from tests.integration.test_publishing import all_served, set_status, system_of_three_trails
from trails.models import TrailSystem

pytestmark = pytest.mark.integration


@pytest.fixture
def system():
    return system_of_three_trails()


@pytest.fixture(params=[True, False], ids=["listening", "version-read"])
def legacy_listen(request, settings):
    """Both ways a web process learns of a commit: the notification, the row-version read."""
    settings.LEGACY_LISTEN = request.param
    yield request.param
    listener.stop()


def published_url(system_id: str) -> str:
    path = TrailSystem.objects.values_list("geo_json_path", flat=True).get(pk=system_id)
    return absolute_public_url(path)


def test_the_next_legacy_request_after_a_compile_commit_names_the_new_file(
    celery_worker, client, system, legacy_listen, django_assert_num_queries
):
    trail = system.trails.first()
    set_status(trail, "Closed")
    wait_for(lambda: all_served(system.pk))
    if legacy_listen:
        wait_for(lambda: listener.stamp(system.pk))
    # This process now caches both bodies; the next compile runs in the worker process.
    before = client.get(f"/legacy/ts/{system.pk}").json()
    assert before["geoJsonUrl"] == published_url(system.pk)
    trails_before = client.get(f"/legacy/trails/{system.pk}")
    with django_assert_num_queries(0 if legacy_listen else 1):
        client.get(f"/legacy/ts/{system.pk}")
    heard = listener.stamp(system.pk)

    set_status(trail, "Caution")
    wait_for(lambda: all_served(system.pk))
    if legacy_listen:  # notified by the write's commit, then by the compile's: milliseconds
        wait_for(lambda: listener.stamp(system.pk).changes >= heard.changes + 2, timeout=0.5)

    after = client.get(f"/legacy/ts/{system.pk}").json()
    assert after["geoJsonUrl"] == published_url(system.pk) != before["geoJsonUrl"]
    assert after["cautionTrails"] == 1
    trails_after = client.get(
        f"/legacy/trails/{system.pk}", headers={"If-None-Match": trails_before["ETag"]}
    )
    assert trails_after.status_code == 200
    statuses = {t["id"]: t["status"] for t in trails_after.json()}
    assert statuses[trail.pk] == "Caution"
    etag = client.get(f"/legacy/ts/{system.pk}")["ETag"]
    unchanged = client.get(f"/legacy/ts/{system.pk}", headers={"If-None-Match": etag})
    assert unchanged.status_code == 304


class HeldCompileLock:
    """Another session holding one system's compile lock, as a long compile of it would."""

    def __init__(self, system_id: str):
        self.system_id = system_id
        self.taken = threading.Event()
        self.release = threading.Event()
        self.thread = threading.Thread(target=self._hold)

    def _hold(self) -> None:
        try:
            with transaction.atomic():
                assert try_lock_system(self.system_id)
                self.taken.set()
                self.release.wait(60)
        finally:
            connection.close()

    def __enter__(self):
        self.thread.start()
        assert self.taken.wait(10)
        return self

    def __exit__(self, *exc):
        self.release.set()
        self.thread.join(30)


def test_a_running_compile_holds_back_its_own_system_only(celery_worker):
    busy, free = TrailSystemFactory(), TrailSystemFactory()
    for system in (busy, free):
        TrailActivityFactory(trail=TrailFactory(trail_system=system, status="None"))

    with HeldCompileLock(busy.pk):
        set_status(busy.trails.first(), "Closed")
        set_status(free.trails.first(), "Closed")
        # The other system compiles while this one's lock is held ...
        wait_for(lambda: all_served(free.pk))
        # ... and this one never compiles beside the holder.
        assert CompileRequest.objects.pending().filter(trail_system=busy).exists()

    # The holder ended without serving them, as a failed compile would: the sweep queues them.
    sweep_pending_compiles.delay()
    wait_for(lambda: all_served(busy.pk))
    assert TrailSystem.objects.get(pk=busy.pk).closed_trails == 1
