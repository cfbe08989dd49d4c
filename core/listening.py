"""One PostgreSQL LISTEN connection per process and channel, shared by everything in the
process that wants to hear of committed changes.

Triggers (trails/migrations/0004_row_version_triggers.py) notify `SYSTEM_CHANGED` with a trail
system's id on every write to the system row (the compile's among them), to its trails or to
their activities. PostgreSQL delivers a notification only when the writing transaction commits,
to every listening session of every machine. The legacy cache (legacy/listener.py) and the
live map streams (public/live.py) each add a `Subscriber`; the connection lives in one daemon
thread that reconnects after a failure and calls every subscriber from there:
`session_started` once listening (anything may have changed while nobody listened),
`notified` for each notification, `session_ended` when the connection is lost or closed.
"""

import contextlib
import logging
import os
import threading
import time
from typing import Protocol

import psycopg
from django.db import connection

logger = logging.getLogger(__name__)

SYSTEM_CHANGED = "legacy_system_changed"
# A tracker's machine moved, started or stopped grooming (grooming.sessions): the payload is
# its trail system's id; the live map's hub sends the machines' places (public/live.py).
GROOMERS_MOVED = "groomers_moved"
# A system's closures file changed (closures.services.publish_closures): the payload is the
# system's id; the live map's hub tells its streams (public/live.py).
CLOSURES_CHANGED = "closures_changed"
# The connection is checked when nothing arrived for this long, and whether it was asked to
# stop at least this often.
IDLE_CHECK_SECONDS = 10.0
WAKE_SECONDS = 1.0


class Subscriber(Protocol):
    def session_started(self) -> None: ...

    def notified(self, payload: str) -> None: ...

    def session_ended(self) -> None: ...


class ChannelListener:
    def __init__(self, channel: str) -> None:
        self.channel = channel
        self.lock = threading.Lock()
        self.thread: threading.Thread | None = None
        self.stopping = threading.Event()
        self.subscribers: list[Subscriber] = []
        self.params: dict = {}
        self.listening = False
        # Heard only by this listener: stop() wakes it with a notification there.
        self.wake_channel = f"{channel}_wake_{os.getpid()}_{id(self)}"

    def subscribe(self, subscriber: Subscriber) -> None:
        """Add a subscriber (once) and start listening if the process is not yet."""
        with self.lock:
            if subscriber not in self.subscribers:
                self.subscribers.append(subscriber)
                if self.listening:
                    subscriber.session_started()
            if self.thread is not None:
                return
            self.params = connection.get_connection_params()
            thread = threading.Thread(
                target=self._run, args=(self.params,), name=f"listen-{self.channel}", daemon=True
            )
            # Started before it is seen: stop() in another thread joins it at once.
            thread.start()
            self.thread = thread

    def stop(self) -> None:
        """Close the connection and forget the subscribers; the next subscribe() listens
        again. The listening thread is woken by a notification on a channel of its own, sent
        through a short connection of its own (the caller's may be inside a transaction, or
        not allowed to reach the database at all), else within WAKE_SECONDS."""
        thread = self.thread
        if thread is None:
            return
        self.stopping.set()
        with (
            contextlib.suppress(psycopg.Error),
            psycopg.connect(**{**self.params, "connect_timeout": 2}, autocommit=True) as waking,
        ):
            waking.execute("SELECT pg_notify(%s, '')", [self.wake_channel])
        thread.join()
        self.stopping.clear()
        with self.lock:
            self.thread = None
            self.subscribers.clear()

    def _each(self, call) -> None:
        with self.lock:
            subscribers = list(self.subscribers)
        for subscriber in subscribers:
            try:
                call(subscriber)
            except Exception:
                logger.exception("a subscriber of %s failed", self.channel)

    def _run(self, params: dict) -> None:
        while not self.stopping.is_set():
            try:
                self._listen(params)
            except Exception:
                logger.warning(
                    "listener of %s lost its connection; reconnecting", self.channel, exc_info=True
                )
            finally:
                if self.listening:
                    self.listening = False
                    self._each(lambda s: s.session_ended())
            self.stopping.wait(WAKE_SECONDS)

    def _listen(self, params: dict) -> None:
        with psycopg.connect(**params, autocommit=True) as listening:
            listening.execute(f"LISTEN {self.channel}")
            listening.execute(f"LISTEN {self.wake_channel}")
            with self.lock:
                self.listening = True
            self._each(lambda s: s.session_started())
            last_heard = time.monotonic()
            while not self.stopping.is_set():
                for notify in listening.notifies(timeout=WAKE_SECONDS):
                    if notify.channel == self.wake_channel:
                        break
                    last_heard = time.monotonic()
                    self._each(lambda s, payload=notify.payload: s.notified(payload))
                if time.monotonic() - last_heard > IDLE_CHECK_SECONDS:
                    listening.execute("SELECT 1")  # raises if the connection is gone
                    last_heard = time.monotonic()


def notify(channel: str, payload: str) -> None:
    """Tell every process listening on `channel`, when the current transaction commits
    (PostgreSQL; elsewhere no process listens)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_notify(%s, %s)", [channel, payload])


_listeners: dict[str, ChannelListener] = {}
_listeners_lock = threading.Lock()


def listener(channel: str = SYSTEM_CHANGED) -> ChannelListener:
    """This process's listener of `channel` (created, not started, on first use)."""
    with _listeners_lock:
        return _listeners.setdefault(channel, ChannelListener(channel))
