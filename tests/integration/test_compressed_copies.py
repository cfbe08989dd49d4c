"""The published file's compressed copies are made of the version that stays (issue 41): a
large file's by the real worker, on their own queue, once a system's writes pause; a reader
asking for brotli or gzip gets the newest file's copy within 5 s of the last write; a file
replaced before its turn is never compressed, and a burst's files wait for its writes to
pause. A small file's copies are made by its compile, with no task. The worker's tests make
every file large for it (MAP_FILE_COPIES_WORKER_MIN_BYTES=0)."""

import gzip
import json
import time

import brotli
import pytest
from django.core.files.storage import default_storage

from config.celery import app as celery_app
from config.celery import copies_queue
from publishing.models import CompileRequest
from publishing.publisher import compile_pending
from publishing.storage import public_url
from publishing.tasks import (
    COPIES_MAX_WAIT_SECONDS,
    compile_system,
    enqueue_copies,
    make_copies,
)
from tests.factories import TrailActivityFactory, TrailFactory, TrailSystemFactory
from tests.integration.conftest import wait_for
from tests.integration.test_publishing import all_served, published, set_status, trail_statuses
from trails.models import TrailSystem

pytestmark = pytest.mark.integration

COPIES_DEADLINE_SECONDS = 5.0
# Every file goes to the copies worker.
TO_THE_WORKER = {"MAP_FILE_COPIES_WORKER_MIN_BYTES": "0"}


@pytest.fixture
def copies_by_the_worker(settings):
    settings.MAP_FILE_COPIES_WORKER_MIN_BYTES = int(
        TO_THE_WORKER["MAP_FILE_COPIES_WORKER_MIN_BYTES"]
    )


@pytest.fixture
def system() -> TrailSystem:
    """Enough trails for a file worth compressing."""
    system = TrailSystemFactory()
    for _ in range(6):
        TrailActivityFactory(trail=TrailFactory(trail_system=system, status="None"))
    return system


def read(path: str) -> bytes:
    with default_storage.open(path, "rb") as stored:
        return stored.read()


def served_copy(client, path: str, encoding: str) -> bytes | None:
    """The file as a reader accepting only `encoding` gets it, decoded; None while it goes
    as written."""
    answer = client.get(public_url(path), headers={"Accept-Encoding": encoding})
    if answer.get("Content-Encoding") != encoding:
        return None
    body = b"".join(answer.streaming_content)
    return brotli.decompress(body) if encoding == "br" else gzip.decompress(body)


def compressed(path: str) -> bool:
    return default_storage.exists(f"{path}.br") or default_storage.exists(f"{path}.gz")


def test_a_reader_gets_the_newest_files_copies_within_5_s_of_the_last_write(
    broker, start_worker, client, system
):
    start_worker(TO_THE_WORKER)
    trails = list(system.trails.all())
    statuses = ("Closed", "Caution", "Open")
    for i in range(12):
        time.sleep(0.1)
        set_status(trails[i % len(trails)], statuses[i % len(statuses)])
    last_write = time.monotonic()

    def newest_copies() -> tuple[str, bytes, bytes] | None:
        if not all_served(system.pk):
            return None
        path = TrailSystem.objects.values_list("geo_json_path", flat=True).get(pk=system.pk)
        copies = (served_copy(client, path, "br"), served_copy(client, path, "gzip"))
        return (path, *copies) if all(copies) else None

    path, brotlied, gzipped = wait_for(newest_copies, timeout=30, interval=0.1)

    waited = time.monotonic() - last_write
    assert waited <= COPIES_DEADLINE_SECONDS, f"copies served {waited:.2f} s after the write"
    assert brotlied == gzipped == read(path)
    statuses_shown = trail_statuses(published(system.pk)[1])
    assert statuses_shown[trails[11 % len(trails)].pk] == statuses[11 % len(statuses)]


def compiled(system: TrailSystem) -> str:
    CompileRequest.objects.create(trail_system=system, reason="test")
    return compile_pending(system.pk).path


@pytest.mark.django_db
def test_only_the_current_file_is_compressed_once_a_file_has_waited_long_enough(
    copies_by_the_worker, system
):
    replaced = compiled(system)
    current = compiled(system)

    made = make_copies(system.pk, time.time() - COPIES_MAX_WAIT_SECONDS)

    assert made
    assert default_storage.exists(f"{current}.br") and default_storage.exists(f"{current}.gz")
    assert not compressed(replaced)


def queued_copies(queue: str) -> list[dict]:
    """The copies tasks waiting in the test's copies queue, oldest first."""
    with celery_app.connection_for_read() as broker_connection:
        client = broker_connection.default_channel.client
        return [json.loads(message) for message in reversed(client.lrange(queue, 0, -1))]


@pytest.mark.django_db
def test_a_write_after_a_quiet_spell_is_compressed_at_once_and_the_next_waits_for_a_pause(
    copies_by_the_worker, broker, system
):
    queue = copies_queue(broker)
    try:
        first = compiled(system)
        enqueue_copies(system.pk, first)
        enqueue_copies(system.pk, first)  # one task per system at a time
        assert [task["headers"]["eta"] for task in queued_copies(queue)] == [None]
        make_copies(system.pk, time.time() - COPIES_MAX_WAIT_SECONDS)  # as the worker would

        second = compiled(system)
        enqueue_copies(system.pk, second)
        made = make_copies(system.pk, time.time())  # the burst's file, a moment old

        waiting = queued_copies(queue)[1:]
        assert len(waiting) == 2 and all(task["headers"]["eta"] for task in waiting)
        assert not made
        assert compressed(first)
        assert not compressed(second)
    finally:
        with celery_app.connection_for_write() as broker_connection:
            broker_connection.default_channel.queue_delete(queue)


@pytest.mark.django_db
def test_a_small_systems_compile_leaves_its_copies_in_place_with_no_copies_task(
    broker, client, system
):
    queue = copies_queue(broker)
    CompileRequest.objects.create(trail_system=system, reason="test")
    try:
        assert compile_system(system.pk)

        path = TrailSystem.objects.values_list("geo_json_path", flat=True).get(pk=system.pk)
        assert served_copy(client, path, "br") == served_copy(client, path, "gzip") == read(path)
        assert queued_copies(queue) == []
    finally:
        with celery_app.connection_for_write() as broker_connection:
            broker_connection.default_channel.queue_delete(queue)
