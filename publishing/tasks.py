"""Background compiles. Idempotent and acknowledged late: a compile reads the current rows,
so running one twice gives the same file, and a task lost with its worker is run again
(the beat sweep re-enqueues whatever is still pending)."""

import time

from celery import shared_task
from django.utils import timezone

from core.queueing import queue
from publishing import weather
from publishing.models import CompileRequest
from publishing.publisher import (
    SystemBusy,
    build_all_systems_file,
    compile_pending,
    compress_published_file,
    delete_old_trail_changes,
    remove_all_files,
    sweep_replaced_files,
)

# While writes keep coming, a system's compiles start at least this far apart, so that a burst
# of writes is served by a few compiles instead of one each: the next compile waits what is
# left of it after the previous one (a compile longer than it is followed at once; the writes
# have waited that long already). The wait is a countdown on the queued task, not in a worker
# process, which compiles other systems meanwhile. A write after a quiet spell is compiled at
# once.
SETTLE_SECONDS = 0.05


@shared_task(acks_late=True)
def compile_system(system_id: str) -> bool:
    """Serve the system's pending requests with one compile; returns whether it compiled.
    After its commit, a compile queues the next one if requests arrived meanwhile (their
    writes queued none: scheduling.compile_is_coming). A task that finds another compile
    running ends: that compile queues the next one after its commit if requests are pending,
    so it needs no retry of its own; a compile that fails leaves its requests to the sweep,
    busy or not. The published file's compressed copies come last, off the freshness path."""
    started = time.monotonic()
    try:
        published = compile_pending(system_id)
    except SystemBusy:
        return False
    if published and CompileRequest.objects.pending().filter(trail_system_id=system_id).exists():
        enqueue_compile(
            system_id, countdown=max(0.0, SETTLE_SECONDS - (time.monotonic() - started))
        )
    if published:
        # After the next compile is queued: another worker process can take it meanwhile.
        compress_published_file(published)
    return bool(published)


@shared_task(acks_late=True)
def sweep_pending_compiles() -> int:
    """Re-enqueue systems with requests still pending (broker down, worker lost)."""
    system_ids = set(CompileRequest.objects.pending().values_list("trail_system_id", flat=True))
    for system_id in system_ids:
        enqueue_compile(system_id)
    return len(system_ids)


@shared_task(acks_late=True)
def sweep_replaced_map_files() -> int:
    """Every grace period (beat): replaced map files of systems no longer being compiled."""
    return sweep_replaced_files(timezone.now())


@shared_task(acks_late=True)
def prune_trail_change_log() -> int:
    """Hourly (beat); `manage.py prune_trail_change_log` where there is no beat."""
    return delete_old_trail_changes(now=timezone.now())


@shared_task(acks_late=True)
def rebuild_all_systems_file() -> None:
    """For the legacy list: every 3 hours (beat), and after a system is deleted."""
    build_all_systems_file()


@shared_task(acks_late=True)
def remove_system_files(system_id: str) -> int:
    """After a system is deleted: its map files."""
    return remove_all_files(system_id)


def enqueue_compile(system_id: str, countdown: float = 0.0) -> None:
    """The request stays pending until a compile serves it, so a failure only delays it: the
    sweep queues it again."""
    queue(compile_system, system_id, countdown=countdown)


def enqueue_unpublish(system_id: str) -> None:
    """A deleted system's files and the all-systems file; if either is not queued, the
    all-systems file waits for its 3-hourly rebuild and the files stay."""
    queue(remove_system_files, system_id)
    enqueue_listing_rebuild()


def enqueue_listing_rebuild() -> None:
    """If it is not queued, the all-systems file waits for its 3-hourly rebuild."""
    queue(rebuild_all_systems_file)


@shared_task
def collect_weather() -> int:
    """Hourly: store current conditions on every active system of a weather tier."""
    return weather.collect_all()
