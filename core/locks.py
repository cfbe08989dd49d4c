"""PostgreSQL advisory locks named by text: one worker at a time on a webhook endpoint, an
alerts queue, a system's alert fan-out, a fair queue's dispatch (core.fairqueue). SQLite
(the embedded default, tasks one at a time) needs none: every lock is granted there."""

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager

from django.db import DatabaseError, connection


def lock_key(name: str) -> int:
    digest = hashlib.blake2b(name.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


@contextmanager
def session_lock(name: str) -> Iterator[bool]:
    """The lock for this database session while the block runs, or False when another
    session holds it. It dies with its session, so a worker killed mid-run frees it at once."""
    if connection.vendor != "postgresql":
        yield True
        return
    key = lock_key(name)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [key])
        held = cursor.fetchone()[0]
    try:
        yield held
    finally:
        if held:
            try:
                with connection.cursor() as cursor:
                    cursor.execute("SELECT pg_advisory_unlock(%s)", [key])
            except DatabaseError:
                connection.close()  # the lock goes with the session


def try_transaction_lock(name: str) -> bool:
    """The lock until the current transaction ends, or False when another holds it."""
    if connection.vendor != "postgresql":
        return True
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s)", [lock_key(name)])
        return cursor.fetchone()[0]


def transaction_lock(name: str, *, shared: bool = False) -> None:
    """The lock until the current transaction ends, waiting for it; shared: only with
    other shared holders (waits for an exclusive one, never for one another)."""
    if connection.vendor != "postgresql":
        return
    function = "pg_advisory_xact_lock_shared" if shared else "pg_advisory_xact_lock"
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {function}(%s)", [lock_key(name)])
