"""Invalidation pushed by PostgreSQL: each web process listens for the trail systems that
changed (core/listening.py), so a cached legacy body is served without any query while nothing
changed.

A process serves a cached body with no query only while its listener is connected and the body
was built under the current `Stamp`; otherwise (listener starting, reconnecting, or off as in
the unit tests, whose writes never commit) every request reads the row versions
(legacy/versions.py), so a lost connection never serves stale data.
"""

import threading
from typing import NamedTuple

from django.conf import settings
from django.db import connection

from core import listening

CHANNEL = listening.SYSTEM_CHANGED


class Stamp(NamedTuple):
    """The listening session a body was built under, and the notifications seen for its
    system: equal stamps mean no commit changed the system in between."""

    session: int
    changes: int


class _Changes:
    """A subscriber of the process's listener: notifications counted per system and session."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.sessions = 0
        self.session = 0  # the current listening session's number; 0: not listening
        self.changes: dict[str, int] = {}

    def stamp(self, system_id: str) -> Stamp | None:
        """The system's stamp, or None when no notification can be trusted right now (and
        then the process listens, if it was not)."""
        with self.lock:
            if self.session:
                return Stamp(self.session, self.changes.get(system_id, 0))
        listening.listener(CHANNEL).subscribe(self)
        return None

    def session_started(self) -> None:
        with self.lock:
            # Bodies built before this session may have missed a notification.
            self.sessions += 1
            self.session = self.sessions
            self.changes.clear()

    def notified(self, payload: str) -> None:
        with self.lock:
            self.changes[payload] = self.changes.get(payload, 0) + 1

    def session_ended(self) -> None:
        with self.lock:
            self.session = 0


_changes = _Changes()


def stamp(system_id: str) -> Stamp | None:
    """None when listening is off (LEGACY_LISTEN) or not on PostgreSQL."""
    if not settings.LEGACY_LISTEN or connection.vendor != "postgresql":
        return None
    return _changes.stamp(system_id)


def stop() -> None:
    """Stop listening in this process (tests, before their database is dropped)."""
    listening.listener(CHANNEL).stop()
