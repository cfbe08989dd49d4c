"""Commits that need not wait for PostgreSQL's WAL flush: records of work already done
(deliveries sent, webhook attempts made), where the wait, not the work, is most of the time.
A worker that dies loses nothing by it (the database has every commit it acknowledged); a
crash of PostgreSQL itself can lose the last such commits, which their callers allow for.
Other databases (SQLite, the embedded default) have no such setting."""

import contextlib
from collections.abc import Iterator

from django.db import DatabaseError, connection


def wait_for_the_disk(wait: bool) -> None:
    """Whether the commit of this transaction waits for the flush."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(f"SET LOCAL synchronous_commit TO {'on' if wait else 'off'}")


@contextlib.contextmanager
def lazily_committed() -> Iterator[None]:
    """Every commit on this connection meanwhile returns before the flush (a transaction
    inside may still wait, with wait_for_the_disk)."""
    if connection.vendor != "postgresql":
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute("SET synchronous_commit TO off")
    try:
        yield
    finally:
        # A broken connection has lost the setting with itself, and is not reused.
        with contextlib.suppress(DatabaseError), connection.cursor() as cursor:
            cursor.execute("RESET synchronous_commit")
