"""A hard deadline for one HTTP exchange with an outside receiver (a webhook endpoint, a push
service): from the request's first byte to the last byte read of the answer, however the
receiver trickles. A per-read socket timeout would let one byte every 2 s hold a worker for
minutes; instead a watchdog shuts the connection's socket down when the time is up, which ends
any write or read in progress. (The connect itself is bounded by the socket's timeout.)"""

import contextlib
import os
import socket
import threading
import time
from typing import Protocol


class Connected(Protocol):
    """A connection (urllib3's, or a sender holding one) and its socket, if open."""

    @property
    def sock(self) -> socket.socket | None: ...


class Watchdog:
    """One exchange's deadline: at it, the connection's socket is shut down; `fired` says
    whether that happened. One watcher thread per process keeps every deadline (a thread per
    exchange would cost more than a quick answer), and it is woken only for a deadline sooner
    than the one it waits for: deadlines armed one after another on a busy connection cost it
    one wake-up per deadline's length, not one per exchange."""

    lock = threading.Condition()
    armed: dict["Watchdog", float] = {}
    watcher: threading.Thread | None = None
    wakes_at: float | None = None  # when the watcher's wait ends; None: when woken

    def __init__(self, connection: Connected, seconds: float):
        self.connection = connection
        self.deadline = time.monotonic() + max(seconds, 0.0)
        self.fired = False

    def _cut(self) -> None:
        self.fired = True
        sock = self.connection.sock
        if sock is not None:
            with contextlib.suppress(OSError):  # already closed
                sock.shutdown(socket.SHUT_RDWR)

    @classmethod
    def _watch(cls) -> None:
        with cls.lock:
            while True:
                now = time.monotonic()
                for watchdog in [w for w, deadline in cls.armed.items() if deadline <= now]:
                    del cls.armed[watchdog]
                    watchdog._cut()
                cls.wakes_at = min(cls.armed.values(), default=None)
                cls.lock.wait(None if cls.wakes_at is None else cls.wakes_at - now)

    def __enter__(self):
        cls = type(self)
        with cls.lock:
            if cls.watcher is None:
                cls.watcher = threading.Thread(target=cls._watch, name="http-deadlines")
                cls.watcher.daemon = True
                cls.watcher.start()
            cls.armed[self] = self.deadline
            if cls.wakes_at is None or self.deadline < cls.wakes_at:
                cls.lock.notify()
        return self

    def __exit__(self, *exc_info) -> None:
        with self.lock:
            self.armed.pop(self, None)

    @classmethod
    def forget_the_parents(cls) -> None:
        """In a forked child: no watcher thread came along, and the lock may be held."""
        cls.lock, cls.armed, cls.watcher, cls.wakes_at = threading.Condition(), {}, None, None


os.register_at_fork(after_in_child=Watchdog.forget_the_parents)
