"""Background compiles. Idempotent and acknowledged late: a compile reads the current rows,
so running one twice gives the same file, and a task lost with its worker is run again
(the beat sweep re-enqueues whatever is still pending)."""

import logging
import time

from celery import shared_task
from django.conf import settings
from django.core.cache import cache
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
from publishing.selectors import load_publication_state

logger = logging.getLogger(__name__)

# While writes keep coming, a system's compiles start at least this far apart, so that a burst
# of writes is served by a few compiles instead of one each: the next compile waits what is
# left of it after the previous one (a compile longer than it is followed at once; the writes
# have waited that long already). The wait is a countdown on the queued task, not in a worker
# process, which compiles other systems meanwhile. A write after a quiet spell is compiled at
# once.
SETTLE_SECONDS = 0.05

# The compressed copies of a file of at least MAP_FILE_COPIES_WORKER_MIN_BYTES are made of the
# version that stays (issue 41: at 5 writes a second the
# copies of every 5 MB version took three times the compile's CPU). A write after a quiet
# spell, most often the only one, has its file's copies made at once; while a system's writes
# keep coming (its copies were made less than COPIES_MAX_WAIT_SECONDS ago), its newest file's
# copies wait until its writes pause for COPIES_QUIET_SECONDS, or COPIES_MAX_WAIT_SECONDS
# under a steady stream: a file replaced before its turn is never compressed. The task looks
# again when the newest file will have been quiet that long if no write comes, so the last
# write's copies follow it by about COPIES_QUIET_SECONDS however long the maximum wait; that
# wait only sets how often a stream that never pauses is compressed, and such copies serve
# little: at 5 writes a second the file they are made of is replaced before they are done.
# The 5,102-trail system's copies cost about 0.13 s of CPU (in-process, 2026-11-29): at 5
# writes a second, 2.6 ms per write every 10 s, 9 ms every 3 s. They are made on a queue of
# their own,
# `<CELERY_QUEUE>-copies` (config.celery), which a worker of their own consumes at a lower CPU
# priority (Procfile's `copies`), so no compile waits behind them. Readers get the file as
# written meanwhile.
COPIES_QUIET_SECONDS = 1.0
COPIES_MAX_WAIT_SECONDS = 10.0
# While a system's copies are coming, its claim (in the cache) says so and its compiles queue
# no other task; a lost task's claim lapses after this, and the next compile queues one again.
COPIES_CLAIM_SECONDS = 60
# One rebuild of the legacy all-systems file coming at a time (enqueue_listing_rebuild): its
# claim (in the cache, per queue) lapses after this if its task is lost. A rebuild that finds
# another writing the file runs again this much later.
LISTING_REBUILD_CLAIM_SECONDS = 120
LISTING_REBUILD_RETRY_SECONDS = 1.0


@shared_task(acks_late=True)
def compile_system(system_id: str) -> bool:
    """Serve the system's pending requests with one compile; returns whether it compiled.
    After its commit, a compile queues the next one if requests arrived meanwhile (their
    writes queued none: scheduling.compile_is_coming). A task that finds another compile
    running ends: that compile queues the next one after its commit if requests are pending,
    so it needs no retry of its own; a compile that fails leaves its requests to the sweep,
    busy or not. A large file's compressed copies are made later, on their own queue, unless
    a newer file replaces it first (make_copies); a small file's by the compile itself."""
    started = time.monotonic()
    try:
        published = compile_pending(system_id)
    except SystemBusy:
        return False
    if published and CompileRequest.objects.pending().filter(trail_system_id=system_id).exists():
        enqueue_compile(
            system_id, countdown=max(0.0, SETTLE_SECONDS - (time.monotonic() - started))
        )
    if published and published.copies_to_come:
        enqueue_copies(system_id, published.path)
    return bool(published)


@shared_task(acks_late=True)
def make_copies(system_id: str, waiting_since: float) -> bool:
    """The compressed copies of the system's current file, once its writes have paused or a
    file has waited for them since `waiting_since` (a time.time()) long enough; until then
    the task looks again when the current file will have been quiet long enough if no write
    comes, or that wait is over (two tasks per system at most, however many systems are
    written). Returns whether copies were made."""
    _, compiled_on, pending = load_publication_state(system_id)
    now = time.time()
    quiet = 0.0 if pending or compiled_on is None else now - compiled_on.timestamp()
    waited = now - waiting_since
    if quiet < COPIES_QUIET_SECONDS and waited < COPIES_MAX_WAIT_SECONDS:
        wait = min(COPIES_QUIET_SECONDS - quiet, COPIES_MAX_WAIT_SECONDS - waited)
        if queue(make_copies, system_id, waiting_since, countdown=wait):
            return False
    # Released before the file is read: a compile that publishes after this read queues
    # copies of its own file, after a pause.
    cache.set(_copies_made(system_id), True, COPIES_MAX_WAIT_SECONDS)
    cache.delete(_copies_claim(system_id))
    path = load_publication_state(system_id)[0]
    if path:
        compress_published_file(path)
    return bool(path)


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
def rebuild_all_systems_file() -> bool:
    """For the legacy list: every 3 hours (beat), and after what it shows changed (a system
    added, deleted, edited or moved by its compile). Releases the claim before it reads the
    systems, so a change committed after that queues the next rebuild; while another rebuild
    is writing the file, queues itself again a moment later. Returns whether it built."""
    try:
        cache.delete(_listing_rebuild_claim())
    except Exception:  # the cache unreachable: the claim lapses
        logger.exception("claim of the all-systems file's rebuild not released")
    if build_all_systems_file(unless_busy=True) is None:
        enqueue_listing_rebuild(countdown=LISTING_REBUILD_RETRY_SECONDS)
        return False
    return True


@shared_task(acks_late=True)
def remove_system_files(system_id: str) -> int:
    """After a system is deleted: its map files."""
    return remove_all_files(system_id)


def enqueue_compile(system_id: str, countdown: float = 0.0) -> None:
    """The request stays pending until a compile serves it, so a failure only delays it: the
    sweep queues it again."""
    queue(compile_system, system_id, countdown=countdown)


def _copies_claim(system_id: str) -> str:
    return f"publishing:copies-coming:{system_id}"


def _copies_made(system_id: str) -> str:
    return f"publishing:copies-made:{system_id}"


def enqueue_copies(system_id: str, path: str) -> None:
    """After a compile's commit: queue the system's copies task unless one is coming, to run
    at once after a quiet spell, else once the writes pause. With no broker (the embedded
    default, one process) the file is compressed at once."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        compress_published_file(path)
        return
    claim = _copies_claim(system_id)
    try:
        if not cache.add(claim, True, COPIES_CLAIM_SECONDS):
            return
        if cache.get(_copies_made(system_id)):
            waiting_since, countdown = time.time(), COPIES_QUIET_SECONDS
        else:
            waiting_since, countdown = time.time() - COPIES_MAX_WAIT_SECONDS, 0.0
        if not queue(make_copies, system_id, waiting_since, countdown=countdown):
            cache.delete(claim)
    except Exception:  # the cache unreachable: the file stays as written, readable by all
        logger.exception("compressed copies of %s not queued", path)


def enqueue_unpublish(system_id: str) -> None:
    """A deleted system's files and the all-systems file; if either is not queued, the
    all-systems file waits for its 3-hourly rebuild and the files stay."""
    queue(remove_system_files, system_id)
    enqueue_listing_rebuild()


def _listing_rebuild_claim() -> str:
    return f"publishing:listing-rebuild-coming:{settings.CELERY_TASK_DEFAULT_QUEUE}"


def enqueue_listing_rebuild(countdown: float = 0.0) -> None:
    """Queue a rebuild of the all-systems file unless one is coming that has not started
    (its claim held): 50 systems compiled at once queue one or two, not 50. If it is not
    queued, the all-systems file waits for its 3-hourly rebuild."""
    claim = _listing_rebuild_claim()
    try:
        if not cache.add(claim, True, LISTING_REBUILD_CLAIM_SECONDS):
            return
    except Exception:  # the cache unreachable: a rebuild too many rather than one lost
        logger.exception("claim of the all-systems file's rebuild not taken")
    if not queue(rebuild_all_systems_file, countdown=countdown):
        cache.delete(claim)


@shared_task
def collect_weather() -> int:
    """Hourly: store current conditions on every active system of a weather tier."""
    return weather.collect_all()
