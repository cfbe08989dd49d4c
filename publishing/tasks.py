"""Background compiles. Idempotent and acknowledged late: a compile reads the current rows,
so running one twice gives the same file, and a task lost with its worker is run again
(the beat sweep re-enqueues whatever is still pending)."""

import logging

from celery import shared_task
from django.utils import timezone

from publishing import weather
from publishing.models import CompileRequest
from publishing.publisher import (
    SystemBusy,
    build_all_systems_file,
    compile_pending,
    sweep_replaced_files,
)

logger = logging.getLogger(__name__)

# While writes keep coming, a system is compiled again this long after the end of its previous
# compile, so that a burst of writes is served by a few compiles instead of one each. The wait
# is a countdown on the queued task, not in a worker process, which compiles other systems
# meanwhile. A write after a quiet spell is compiled at once.
SETTLE_SECONDS = 0.05


@shared_task(acks_late=True)
def compile_system(system_id: str) -> bool:
    """Serve the system's pending requests with one compile; returns whether it compiled.
    After its commit, a compile queues the next one if requests arrived meanwhile (their
    writes queued none: scheduling.compile_is_coming). A task that finds another compile
    running ends: that compile queues the next one after its commit if requests are pending,
    so it needs no retry of its own; a compile that fails leaves its requests to the sweep,
    busy or not."""
    try:
        published = compile_pending(system_id)
    except SystemBusy:
        return False
    if published and CompileRequest.objects.pending().filter(trail_system_id=system_id).exists():
        enqueue_compile(system_id, countdown=SETTLE_SECONDS)
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
def rebuild_all_systems_file() -> None:
    """Every 3 hours (beat) for the legacy list."""
    build_all_systems_file()


def enqueue_compile(system_id: str, countdown: float = 0.0) -> None:
    """Never fails the caller: the write is committed and its request stays pending until a
    compile serves it, so a broker error (or, in-process, a compile error) only delays it."""
    try:
        compile_system.apply_async((system_id,), countdown=countdown or None)
    except Exception:
        logger.exception("compile of %s not queued; the sweep will retry it", system_id)


@shared_task
def collect_weather() -> int:
    """Hourly: store current conditions on every active system of a weather tier."""
    return weather.collect_all()
