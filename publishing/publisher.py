"""Publishing one trail system: compile its rows, write a new file, store the path and the
statistics, delete the previous file. Also the legacy all-systems file.

Order of operations: the new file is written first, the trail system row is switched to it
in the same transaction that marks the compile requests done, and the previous file is
deleted only after that commit. A failure anywhere leaves the previous file published.
"""

import gc
import hashlib
import logging
import time
from contextlib import contextmanager
from dataclasses import asdict
from datetime import datetime

import orjson
from django.core.files.storage import default_storage
from django.db import connection, transaction
from django.db.models import Max
from django.utils import timezone

from publishing import storage
from publishing.compile import all_systems_collection, compile_rows
from publishing.models import CompileRequest
from publishing.selectors import load_active_systems, load_system_rows
from trails.models import TrailSystem

logger = logging.getLogger(__name__)


def try_lock_system(system_id: str) -> bool:
    """Take the system's compile lock for this transaction, or False if a compile holds it.
    PostgreSQL advisory lock; SQLite (embedded default, tasks run one at a time) needs none."""
    if connection.vendor != "postgresql":
        return True
    digest = hashlib.blake2b(f"compile:{system_id}".encode(), digest_size=8).digest()
    key = int.from_bytes(digest, "big", signed=True)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s)", [key])
        return cursor.fetchone()[0]


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


def publish_system(system_id: str, now: datetime) -> tuple[str, str]:
    """Compile and write a new file, then point the trail system at it, inside the caller's
    transaction. Returns (new path, previous path)."""
    with paused_gc():
        rows = load_system_rows(system_id, now)
        compiled = compile_rows(rows, now)
        body = orjson.dumps(compiled.feature_collection)
    previous = TrailSystem.objects.values_list("geo_json_path", flat=True).get(pk=system_id)
    path = storage.write_file(storage.new_map_name(system_id, now), body)
    try:
        TrailSystem.objects.filter(pk=system_id).update(
            geo_json_path=path, compiled_on=now, **asdict(compiled.statistics)
        )
    except BaseException:
        storage.delete_file(path)
        raise
    return path, previous


def settle(system_id: str, seconds: float) -> None:
    """Wait until the system's newest pending request is `seconds` old (at most that)."""
    newest = (
        CompileRequest.objects.pending()
        .filter(trail_system_id=system_id)
        .aggregate(newest=Max("requested_on"))["newest"]
    )
    if newest:
        wait = seconds - (timezone.now() - newest).total_seconds()
        time.sleep(min(max(wait, 0.0), seconds))


def compile_pending(system_id: str, settle_seconds: float = 0.0) -> str | None:
    """Serve every pending compile request of one system with a single compile.

    Returns the published path, or None when nothing was pending or another compile holds
    the system: requests recorded while a compile runs stay pending and are served by the
    next round (see tasks.compile_system), never by two compiles at once. Only the lock
    holder settles, so tasks of the same burst leave at once instead of waiting too."""
    published = ""
    try:
        with transaction.atomic():
            if not try_lock_system(system_id):
                return None
            if settle_seconds:
                settle(system_id, settle_seconds)
            pending = list(
                CompileRequest.objects.pending()
                .filter(trail_system_id=system_id)
                .values_list("pk", flat=True)
            )
            if not pending:
                return None
            started = timezone.now()
            published, previous = publish_system(system_id, started)
            CompileRequest.objects.filter(pk__in=pending).update(
                started_on=started, done_on=timezone.now(), published_path=published
            )
            # Robust: a failed delete is logged and leaves an orphan file, never an error
            # here, where it would look like a failed compile after the commit.
            transaction.on_commit(lambda: storage.delete_file(previous), robust=True)
    except BaseException:
        storage.delete_file(published)
        raise
    logger.info("compiled %s for %d request(s): %s", system_id, len(pending), published)
    return published


def build_all_systems_file() -> bytes:
    """The legacy GET /trail-systems file, stored under one name; returns its bytes."""
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
