"""Background compiles. Idempotent and acknowledged late: a compile reads the current rows,
so running one twice gives the same file, and a task lost with its worker is run again
(the beat sweep re-enqueues whatever is still pending)."""

import logging

from celery import shared_task

from publishing import weather
from publishing.models import CompileRequest
from publishing.publisher import build_all_systems_file, compile_pending

logger = logging.getLogger(__name__)

# Compiles one task runs back to back before handing the system to a fresh task, so a
# system under constant writes does not hold a worker forever.
MAX_ROUNDS = 20
# After taking a system's lock, a worker waits until its newest request is this old, so
# a burst of writes is served by one compile instead of one each (at most once a compile).
SETTLE_SECONDS = 0.15


@shared_task(bind=True, acks_late=True)
def compile_system(self, system_id: str) -> int:
    """Serve the system's pending requests, then any recorded during that compile; returns
    the number of compiles run. A task that finds another compile running leaves at once:
    that compile looks for new requests after its commit and serves them. In-process
    (no broker) the write is waiting, so there is no settling."""
    settle_seconds = 0.0 if self.request.is_eager else SETTLE_SECONDS
    for rounds in range(MAX_ROUNDS):
        if not compile_pending(system_id, settle_seconds):
            return rounds
    enqueue_compile(system_id)
    return MAX_ROUNDS


@shared_task(acks_late=True)
def sweep_pending_compiles() -> int:
    """Re-enqueue systems with requests still pending (broker down, worker lost)."""
    system_ids = set(CompileRequest.objects.pending().values_list("trail_system_id", flat=True))
    for system_id in system_ids:
        enqueue_compile(system_id)
    return len(system_ids)


@shared_task(acks_late=True)
def rebuild_all_systems_file() -> None:
    """Every 3 hours (beat) for the legacy list."""
    build_all_systems_file()


def enqueue_compile(system_id: str) -> None:
    """Never fails the caller: the write is committed and its request stays pending until a
    compile serves it, so a broker error (or, in-process, a compile error) only delays it."""
    try:
        compile_system.delay(system_id)
    except Exception:
        logger.exception("compile of %s not queued; the sweep will retry it", system_id)


@shared_task
def collect_weather() -> int:
    """Hourly: store current conditions on every active system of a weather tier."""
    return weather.collect_all()
