"""Deleting a trail system unpublishes it: the legacy all-systems list drops it and its map
files leave storage, once the deletion commits (tasks run in-process after commit)."""

import threading

import orjson
import pytest
from django.core.files.storage import default_storage
from django.db import connection, transaction
from django.utils import timezone

from core.actors import Actor, Via
from publishing.publisher import SystemBusy, compile_pending
from publishing.scheduling import record_compile_request
from publishing.storage import new_map_name, write_file
from tests.factories import TrailFactory, TrailSystemFactory
from trails import services
from trails.models import TrailSystem

pytestmark = pytest.mark.django_db

# A map file as a compile of a system without trails writes it.
EMPTY_MAP = b'{"type": "FeatureCollection", "features": []}'

SUPER_ADMIN = Actor("super-admin", Via.WEB_APP)


def listed(client) -> list[str]:
    response = client.get("/legacy/trail-systems")
    assert response.status_code == 200
    return [f["properties"]["tsId"] for f in orjson.loads(response.content)["features"]]


def publish(system: TrailSystem, capture) -> str:
    with capture(execute=True), transaction.atomic():
        record_compile_request(system, reason="test")
    system.refresh_from_db()
    return system.geo_json_path


def delete(system: TrailSystem, capture) -> None:
    with capture(execute=True):
        services.delete_trail_system(system=system, actor=SUPER_ADMIN)


def test_a_deleted_system_leaves_the_legacy_list_and_its_files_leave_storage(
    client, django_capture_on_commit_callbacks
):
    kept, deleted = TrailSystemFactory(name="Kept"), TrailSystemFactory(name="Deleted")
    for system in (kept, deleted):
        TrailFactory(trail_system=system)
    kept_file = publish(kept, django_capture_on_commit_callbacks)
    replaced = publish(deleted, django_capture_on_commit_callbacks)
    current = publish(deleted, django_capture_on_commit_callbacks)
    orphan = write_file(new_map_name(deleted.pk, timezone.now()), EMPTY_MAP)
    assert listed(client) == [deleted.pk, kept.pk]

    delete(deleted, django_capture_on_commit_callbacks)

    assert listed(client) == [kept.pk]
    # At once, not after the grace: the system's legacy document and public map are gone,
    # so no reader is handed these names again.
    for path in (replaced, current, orphan):
        assert not default_storage.exists(path)
    assert default_storage.exists(kept_file)


def test_nothing_is_unpublished_when_the_deletion_rolls_back(
    client, django_capture_on_commit_callbacks
):
    system = TrailSystemFactory()
    current = publish(system, django_capture_on_commit_callbacks)
    assert listed(client) == [system.pk]

    with (
        django_capture_on_commit_callbacks(execute=True),
        pytest.raises(RuntimeError),
        transaction.atomic(),
    ):
        services.delete_trail_system(system=system, actor=SUPER_ADMIN)
        raise RuntimeError("the deleting request fails after the delete")

    assert listed(client) == [system.pk]
    assert default_storage.exists(current)


def compile_elsewhere(system_id: str) -> BaseException | None:
    """A worker's compile of the system, on a connection of its own; what it raised."""
    raised: list[BaseException | None] = [None]

    def run() -> None:
        try:
            compile_pending(system_id)
        except BaseException as error:
            raised[0] = error
        finally:
            connection.close()

    worker = threading.Thread(target=run)
    worker.start()
    worker.join(10)
    return raised[0]


def test_no_compile_of_the_system_runs_beside_its_deletion(django_capture_on_commit_callbacks):
    system = TrailSystemFactory()

    with django_capture_on_commit_callbacks(execute=False), transaction.atomic():
        services.delete_trail_system(system=system, actor=SUPER_ADMIN)
        # Until the deletion commits, a compile cannot start and write a file that the
        # removal, queued on commit, would miss.
        assert isinstance(compile_elsewhere(system.pk), SystemBusy)
