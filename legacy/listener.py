"""Invalidation pushed by PostgreSQL: each web process listens for the trail systems that
changed, so a cached legacy body is served without any query while nothing changed.

Triggers (trails/migrations/0004_row_version_triggers.py) notify `CHANNEL` with the system's id
on every write to the system row (the compile's among them), to its trails or to their
activities. PostgreSQL delivers a notification only when the writing transaction commits, to
every listening session of every machine. A process serves a cached body with no query only
while its listener is connected and the body was built under the current `Stamp`; otherwise
(listener starting, reconnecting, or off as in the unit tests, whose writes never commit) every
request reads the row versions (legacy/versions.py), so a lost connection never serves stale
data.
"""

import logging
import threading
import time
from typing import NamedTuple

import psycopg
from django.conf import settings
from django.db import connection

logger = logging.getLogger(__name__)

CHANNEL = "legacy_system_changed"
# The listener checks its connection when nothing arrived for this long, and whether it was
# asked to stop at least this often.
IDLE_CHECK_SECONDS = 10.0
WAKE_SECONDS = 1.0


class Stamp(NamedTuple):
    """The listening session a body was built under, and the notifications seen for its
    system: equal stamps mean no commit changed the system in between."""

    session: int
    changes: int


class _Listener:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.thread: threading.Thread | None = None
        self.stopping = threading.Event()
        self.sessions = 0
        self.session = 0  # the current listening session's number; 0: not listening
        self.changes: dict[str, int] = {}

    def stamp(self, system_id: str) -> Stamp | None:
        """The system's stamp, or None when no notification can be trusted right now."""
        if self.thread is None:
            self._start()
        with self.lock:
            if not self.session:
                return None
            return Stamp(self.session, self.changes.get(system_id, 0))

    def _start(self) -> None:
        with self.lock:
            if self.thread is not None:
                return
            params = connection.get_connection_params()
            self.thread = threading.Thread(
                target=self._run, args=(params,), name="legacy-listener", daemon=True
            )
            self.thread.start()

    def stop(self) -> None:
        """Close the listening connection (within WAKE_SECONDS); the next stamp() restarts."""
        thread = self.thread
        if thread is None:
            return
        self.stopping.set()
        thread.join()
        self.stopping.clear()
        self.thread = None

    def _run(self, params: dict) -> None:
        while not self.stopping.is_set():
            try:
                self._listen(params)
            except Exception:
                logger.warning("legacy listener lost its connection; reconnecting", exc_info=True)
            finally:
                with self.lock:
                    self.session = 0
            self.stopping.wait(WAKE_SECONDS)

    def _listen(self, params: dict) -> None:
        with psycopg.connect(**params, autocommit=True) as listening:
            listening.execute(f"LISTEN {CHANNEL}")
            with self.lock:
                # Bodies built before this session may have missed a notification.
                self.sessions += 1
                self.session = self.sessions
                self.changes.clear()
            last_heard = time.monotonic()
            while not self.stopping.is_set():
                for notify in listening.notifies(timeout=WAKE_SECONDS):
                    last_heard = time.monotonic()
                    with self.lock:
                        self.changes[notify.payload] = self.changes.get(notify.payload, 0) + 1
                if time.monotonic() - last_heard > IDLE_CHECK_SECONDS:
                    listening.execute("SELECT 1")  # raises if the connection is gone
                    last_heard = time.monotonic()


_listener = _Listener()


def stamp(system_id: str) -> Stamp | None:
    """None when listening is off (LEGACY_LISTEN) or not on PostgreSQL."""
    if not settings.LEGACY_LISTEN or connection.vendor != "postgresql":
        return None
    return _listener.stamp(system_id)


def stop() -> None:
    """Stop listening in this process (tests, before their database is dropped)."""
    _listener.stop()
