"""Publishing one trail system: compile its rows, write a new file, store the path and the
statistics, delete the files replaced more than a grace period ago. Also the legacy
all-systems file, and the removal of a deleted system's files.

Order of operations: the new file is written first, the trail system row is switched to it
in the same transaction that marks the compile requests done (which record the path and when),
and replaced files are deleted only after that commit, once replaced for
settings.MAP_FILE_GRACE (a reader that was handed the previous name can still fetch it). A
failure anywhere leaves the previous file published. A compile deletes files by their recorded
names; only the sweep lists storage (one LIST request per system on an object storage).
"""

import gc
import hashlib
import logging
import threading
import time
from collections.abc import Collection
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import chain
from operator import attrgetter

import orjson
from cachetools import LRUCache
from django.conf import settings
from django.core.files.storage import default_storage
from django.db import connection, transaction
from django.dispatch import Signal
from django.utils import timezone

from closures.services import publish_closures
from core import events, queueing
from core.dates import iso_ms
from core.locks import transaction_lock, try_transaction_lock
from core.names import camel
from publishing import metrics, storage
from publishing.compile import (
    Compiled,
    EncodedPoints,
    Plan,
    Statistics,
    SystemRows,
    TrailRow,
    UpdateRow,
    all_systems_collection,
    compile_rows,
    plan_system,
)
from publishing.models import CompileRequest
from publishing.selectors import (
    SystemState,
    load_active_systems,
    load_geometries,
    load_live_trails,
    load_paths_replaced_since_previous,
    load_points,
    load_recently_compiled_systems,
    load_replacement_times,
    load_system_rows,
    load_system_state,
    load_trail_places,
    load_updates,
    rows_are_versioned,
)
from trails.models import TrailSystem
from trails.services import derive_location

logger = logging.getLogger(__name__)

# Sent with system_id once a compile's commit has published a new file, in the process that
# compiled it. Other processes hear of it through PostgreSQL (core/listening.py); this is how
# the embedded default, whose compiles run in the web process, tells its live map streams.
map_published = Signal()


@dataclass(frozen=True, slots=True)
class PublishedFile:
    """A compile's new file, and whether its compressed copies are still to be made (by the
    copies worker, publishing.tasks.make_copies) or were made by the compile itself."""

    path: str
    copies_to_come: bool
    statistics: Statistics | None = None


def copies_made_in_compile(size: int) -> bool:
    """A file smaller than MAP_FILE_COPIES_WORKER_MIN_BYTES is compressed by its compile, in
    about a millisecond for 20 trails, less than a copies task costs to queue and run (issue
    41: 50 small systems written at once queued dozens of them a second)."""
    return settings.MAP_FILE_COPIES_IN_COMPILE or size < settings.MAP_FILE_COPIES_WORKER_MIN_BYTES


class SystemBusy(Exception):
    """Another compile of the system holds its lock."""


def _lock(system_id: str, statement: str) -> object:
    """Run a PostgreSQL advisory lock function of this transaction on the system's key; SQLite
    (embedded default, tasks run one at a time) needs no lock."""
    if connection.vendor != "postgresql":
        return True
    digest = hashlib.blake2b(f"compile:{system_id}".encode(), digest_size=8).digest()
    with connection.cursor() as cursor:
        cursor.execute(statement, [int.from_bytes(digest, "big", signed=True)])
        return cursor.fetchone()[0]


def try_lock_system(system_id: str) -> bool:
    """Take the system's compile lock for this transaction, or False if a compile holds it."""
    return bool(_lock(system_id, "SELECT pg_try_advisory_xact_lock(%s)"))


def wait_for_compile(system_id: str) -> None:
    """Take the system's compile lock for this transaction, waiting for a running compile to
    end: a deletion that holds it is never followed by a compile's file."""
    _lock(system_id, "SELECT pg_advisory_xact_lock(%s)")


@contextmanager
def paused_gc():
    """A large system is hundreds of thousands of small lists and dicts, none of them in a
    reference cycle; the cyclic collector would rescan them over and over while they are
    built (a third of the compile time) and could reclaim nothing."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@dataclass(slots=True)
class _KeptSystem:
    trails: dict[str, TrailRow]  # without geometry
    places: dict[str, tuple]  # the live trails in list order: load_trail_places
    snapshot: str  # the database snapshot the trails were read after
    kept_on: float  # time.monotonic()
    plan: Plan  # with every trail's encoded features
    points: EncodedPoints
    updates: list[UpdateRow]
    state: SystemState  # the digests the points and updates were read after
    size: int


# The change log's rows are kept this long: far longer than any kept compile is trusted.
CHANGE_LOG_KEPT = timedelta(days=1)
# Held by the build of the all-systems file (one at a time).
ALL_SYSTEMS_FILE_LOCK = "publishing:all-systems-file"


class KeptCompiles:
    """Each system's trail rows (without geometry), their places in the list, encoded trail
    features, encoded points and update rows from its last compile in this process, with the
    database snapshot and digests it read them after: the next compile reads only the trails
    the change log names since that snapshot, the points and updates only if their digest
    changed, and encodes only the trails whose key changed (and the points if any changed).
    Least recently compiled systems leave first beyond MAX_BYTES (a system larger than that
    is not kept); a process starts empty, so its first compile of a system is a full one, and
    a deploy never reuses another version's bytes. A kept compile older than TRUSTED_SECONDS
    is not used: the log is pruned after a day."""

    MAX_BYTES = 256 * 1024 * 1024
    ROW_BYTES = 900  # a TrailRow without geometry and its plan, roughly
    TRUSTED_SECONDS = 3600.0

    def __init__(self) -> None:
        self._systems: LRUCache[str, _KeptSystem] = LRUCache(
            self.MAX_BYTES, getsizeof=attrgetter("size")
        )
        self._lock = threading.Lock()  # the cache is not thread-safe

    def get(self, system_id: str) -> _KeptSystem | None:
        with self._lock:
            kept = self._systems.get(system_id)
        if kept is not None and time.monotonic() - kept.kept_on > self.TRUSTED_SECONDS:
            return None
        return kept

    def keep(self, system_id: str, read: "_ReadTrails", rows: SystemRows, compiled: Compiled):
        """The file's bytes are the features kept, and a comma between each two."""
        points = compiled.encoded_points
        size = len(compiled.body)
        size += self.ROW_BYTES * (len(read.trails) + len(points.rows) + len(rows.updates))
        kept = _KeptSystem(
            read.by_id,
            read.places,
            read.state.snapshot,
            time.monotonic(),
            compiled.plan,
            points,
            rows.updates,
            read.state,
            size,
        )
        with self._lock:
            try:
                self._systems[system_id] = kept
            except ValueError:  # larger than MAX_BYTES alone
                self._systems.pop(system_id, None)

    def forget(self, system_id: str) -> None:
        """The next compile of the system in this process is a full one (benchmarks)."""
        with self._lock:
            self._systems.pop(system_id, None)


kept_compiles = KeptCompiles()


@dataclass(slots=True)
class _ReadTrails:
    trails: list[TrailRow]  # the live trails in list order
    by_id: dict[str, TrailRow]  # the same trails by id
    places: dict[str, tuple]
    state: SystemState
    changed: set[str] | None  # the trails read again; None: all of them
    fresh: Collection[TrailRow]  # the rows read with their geometry


def _current_trails(system_id: str, now: datetime, kept: _KeptSystem | None) -> _ReadTrails:
    """The live trails in list order: the kept rows, except those the change log names since
    the kept snapshot, which are read again (with their geometry) or left out when no longer
    live in the system. The order is read again only when a trail joined the list or moved in
    it. Without a kept compile, every trail is read."""
    # The snapshot first: whatever commits later is read again next time.
    if kept is None:
        state = load_system_state(system_id, now)
        places, rows = load_live_trails(system_id)
        return _read(places, rows, state, None, rows.values())
    state = load_system_state(system_id, now, kept.snapshot)
    changed = state.changed
    if not changed:
        trails = [kept.trails[t] for t in kept.places]
        return _ReadTrails(trails, kept.trails, kept.places, state, changed, ())
    live, fresh = load_live_trails(system_id, list(changed))
    if any(kept.places.get(t) != place for t, place in live.items()):
        places = load_trail_places(system_id)
    elif len(live) == len(changed):  # every trail changed still in its place
        places = kept.places
    else:
        places = {t: place for t, place in kept.places.items() if t not in changed or t in live}
    rows = dict(kept.trails)
    for trail_id in changed:
        rows.pop(trail_id, None)
    rows.update(fresh)
    return _read(places, rows, state, changed, fresh.values())


def _read(
    places: dict[str, tuple],
    rows: dict[str, TrailRow],
    state: SystemState,
    changed: set[str] | None,
    fresh: Collection[TrailRow],
) -> _ReadTrails:
    """The trails placed that have a row: one deleted, or added, after the log was read has
    none here (the log names it to the next compile)."""
    trails = [found for t in places if (found := rows.get(t))]
    if len(trails) < len(places):
        places = {t.id: places[t.id] for t in trails}
    if len(trails) < len(rows):
        rows = {t.id: t for t in trails}
    return _ReadTrails(trails, rows, places, state, changed, fresh)


def _system_rows(system_id: str, now: datetime, read: _ReadTrails, kept: _KeptSystem | None):
    """The rows to compile: the trails read, and the kept points and updates unless their
    digest changed since they were read."""
    state = read.state
    if kept is not None and kept.state.points_digest == state.points_digest:
        points = kept.points.rows
    else:
        points = load_points(system_id)
    if kept is not None and kept.state.updates_digest == state.updates_digest:
        updates = kept.updates
    else:
        updates = load_updates(system_id, now)
    return SystemRows(state.language, read.trails, points, updates)


def compile_incrementally(system_id: str, now: datetime) -> tuple[SystemRows, Compiled]:
    """The system's rows and their compile, reading the trails the change log names (and the
    points and updates if they changed) and encoding those whose key changed since this
    process last compiled the system (everything where rows carry no version)."""
    if not rows_are_versioned():
        rows = load_system_rows(system_id, now)
        return rows, compile_rows(rows, now)
    kept = kept_compiles.get(system_id)
    read = _current_trails(system_id, now, kept)
    rows = _system_rows(system_id, now, read, kept)
    if kept is None:
        plan = plan_system(rows, now)
    else:
        plan = plan_system(rows, now, None, kept.points, previous=kept.plan, changed=read.changed)
    # Trails read in full since the last compile come with their geometry.
    lacking = [trail for trail in plan.to_encode() if trail.geometry is None]
    if lacking:
        geometries = load_geometries([trail.id for trail in lacking])
        for trail in lacking:
            trail.geometry = geometries.get(trail.id)
    compiled = compile_rows(rows, now, plan)
    for trail in chain(read.fresh, lacking):
        trail.geometry = None
    kept_compiles.keep(system_id, read, rows, compiled)
    return rows, compiled


def publish_system(system_id: str, now: datetime) -> PublishedFile:
    """Compile and write a new file, then point the trail system at it, inside the caller's
    transaction. A small file is written with its compressed copies; a large one as compiled,
    its copies to come."""
    with paused_gc():
        rows, compiled = compile_incrementally(system_id, now)
    statistics = compiled.statistics
    copies_to_come = not copies_made_in_compile(len(compiled.body))
    path = storage.write_file(
        storage.new_map_name(system_id, now), compiled.body, compress_later=copies_to_come
    )
    try:
        # A trail's line edited, hidden or trashed moves or drops the closures on it.
        publish_closures(system_id=system_id, now=now, language=rows.language)
        TrailSystem.objects.filter(pk=system_id).update(
            geo_json_path=path, compiled_on=now, **statistics.columns()
        )
        derive_location(system_id=system_id)
    except BaseException:
        storage.delete_file(path)
        raise
    return PublishedFile(path, copies_to_come, statistics)


def compress_published_file(path: str) -> None:
    """After the commit that named it: the file's compressed copies, off the freshness path
    (readers get the file as written until they exist). A failure is logged and leaves the
    file as written, which every reader can read."""
    if settings.MAP_FILE_COPIES_IN_COMPILE:
        return  # made by the compile itself
    try:
        # A smaller file (the current one of a system that shrank since the task was queued)
        # was written with its copies: on a bucket, compressing it again would gzip it twice.
        storage.compress_file(path, min_bytes=settings.MAP_FILE_COPIES_WORKER_MIN_BYTES)
    except Exception:
        logger.exception("compressed copies of %s not stored", path)


def remove_replaced_files(system_id: str, done: datetime) -> int:
    """After the commit of a compile done at `done`: the files replaced more than the grace
    before it, and not yet that long at the previous compile, by their recorded names (no
    storage listing). Files still in their grace go with a later compile or the sweep."""
    paths = load_paths_replaced_since_previous(system_id, done, settings.MAP_FILE_GRACE)
    for path in paths:
        storage.delete_file(path)
    return len(paths)


def remove_stored_files(system_id: str, current: str, now: datetime) -> int:
    """The system's stored map files whose grace has passed, found by listing its folder: a
    file a compile published once the compile after it has been done for the grace (the
    records say when, so a failed compile's file in between shortens nothing); a file no
    compile published (its compile failed after writing it) once written that long ago. The
    current file is kept, and so is the newest, which may be a running compile's."""
    written = {
        path: time
        for path in storage.list_map_files(system_id)
        if (time := storage.map_file_time(path))
    }
    if not written:
        return 0
    newest = max(written, key=written.__getitem__)
    replaced = load_replacement_times(system_id, list(written), min(written.values()))
    deadline = now - settings.MAP_FILE_GRACE
    removed = 0
    for path, written_on in written.items():
        gone_after = replaced.get(path, written_on)
        if path not in (current, newest) and gone_after is not None and gone_after <= deadline:
            storage.delete_file(path)
            removed += 1
    return removed


def sweep_replaced_files(now: datetime) -> int:
    """Files a compile left: the last ones replaced before a system went quiet, still in
    their grace at its last compile, and those of a failed compile or removal. Only systems
    compiled within three grace periods are listed: run every grace period, the sweep reaches
    each such system's last files after their grace and before the system leaves that
    window."""
    since = now - 3 * settings.MAP_FILE_GRACE
    return sum(
        remove_stored_files(system_id, current, now)
        for system_id, current in load_recently_compiled_systems(since)
    )


def delete_old_trail_changes(*, now: datetime) -> int:
    """Delete the change log's rows older than CHANGE_LOG_KEPT: no kept compile is that old
    (KeptCompiles trusts one for less). Only PostgreSQL has the log."""
    if not rows_are_versioned():
        return 0
    with connection.cursor() as cursor:
        cursor.execute(
            "DELETE FROM publishing_trail_change WHERE logged_on < %s", [now - CHANGE_LOG_KEPT]
        )
        return cursor.rowcount


def remove_all_files(system_id: str) -> int:
    """A deleted system's map files, at once: its legacy document and public map are gone, so
    nobody is to be handed their names again. One listing (deletions are rare), which finds
    failed compiles' files too."""
    paths = storage.list_map_files(system_id)
    for path in paths:
        storage.delete_file(path)
    return len(paths)


def compile_pending(system_id: str) -> PublishedFile | None:
    """Serve every pending compile request of one system with a single compile.

    Returns the published file, or None when nothing was pending; raises SystemBusy when
    another compile holds the system: requests recorded while a compile runs stay pending and
    are served by the next compile (see tasks.compile_system), never by two at once."""
    published = PublishedFile("", copies_to_come=False)
    try:
        with transaction.atomic():
            if not try_lock_system(system_id):
                raise SystemBusy(system_id)
            pending = dict(
                CompileRequest.objects.pending()
                .filter(trail_system_id=system_id)
                .values_list("pk", "requested_on")
            )
            if not pending:
                return None
            started = timezone.now()
            published = publish_system(system_id, started)
            done = timezone.now()
            CompileRequest.objects.filter(pk__in=pending).update(
                started_on=started, done_on=done, published_path=published.path
            )
            events.announce_one(
                system_id=system_id,
                type=events.SYSTEM_PUBLISHED,
                data=lambda: published_data(system_id, published, done),
            )
            # The live maps of this process first; then the replaced files. Robust: a failed
            # delete is logged and leaves the files to the sweep, never an error here, where
            # it would look like a failed compile.
            queueing.on_commit(lambda: map_published.send(sender=None, system_id=system_id))
            queueing.on_commit(lambda: remove_replaced_files(system_id, done))
    except BaseException:
        storage.delete_file(published.path)
        raise
    metrics.compile_seconds.observe((done - started).total_seconds())
    metrics.publish_delay_seconds.observe((done - min(pending.values())).total_seconds())
    logger.info("compiled %s for %d request(s): %s", system_id, len(pending), published.path)
    return published


def published_data(system_id: str, published: PublishedFile, done: datetime) -> dict:
    """The event `system.published`: the new file's address and the counts it holds."""
    counts = ("total_trails", "open_trails", "caution_trails", "closed_trails")
    return {
        "trailSystemId": system_id,
        "url": storage.absolute_public_url(published.path),
        "publishedOn": iso_ms(done),
        **{camel(name): getattr(published.statistics, name) for name in counts},
    }


def build_all_systems_file(*, unless_busy: bool = False) -> bytes | None:
    """The legacy GET /trail-systems file, stored under one name; returns its bytes. One build
    at a time, so that a build that read the systems before a change never replaces the file
    of one that read them after it. unless_busy: None at once while another builds."""
    with transaction.atomic():
        if unless_busy:
            if not try_transaction_lock(ALL_SYSTEMS_FILE_LOCK):
                return None
        else:
            transaction_lock(ALL_SYSTEMS_FILE_LOCK)
        body = orjson.dumps(all_systems_collection(load_active_systems()))
        storage.replace_file(storage.ALL_SYSTEMS_NAME, body)
    return body


def read_all_systems_file() -> bytes:
    """The legacy all-systems file; built on the spot when it is missing."""
    if default_storage.exists(storage.ALL_SYSTEMS_NAME):
        try:
            with default_storage.open(storage.ALL_SYSTEMS_NAME, "rb") as stored:
                return stored.read()
        except FileNotFoundError:
            pass  # replaced between the two calls
    return build_all_systems_file()


def build_missing_all_systems_file(**kwargs: object) -> None:
    """After migrations, build the legacy all-systems file when it is absent. A storage that
    cannot be reached (migrations run without its credentials) must not fail `migrate`:
    the file is also built on first read and by beat."""
    try:
        if not default_storage.exists(storage.ALL_SYSTEMS_NAME):
            build_all_systems_file()
    except Exception:
        logger.warning("all-systems file not built after migrate", exc_info=True)
