"""Fixed-window request counters in Django's cache (Redis in production, memory otherwise).

The cache is no single point of failure: while it cannot be reached, each counter is kept in
this process instead, with the same limit and window (so across W web processes a subject may
make up to W times its limit while Redis is down; docs/operators/security.md). That table holds
at most FALLBACK_COUNTERS counters, so a flood of new subjects cannot grow a process: once it is
full, a subject it does not hold is not counted but refused with `Unavailable` (503 with
Retry-After), never let through uncounted. After a cache error Redis is not tried again for
RETRY_CACHE_SECONDS, so an outage costs a request no connection attempt."""

import hashlib
import logging
import threading
import time

from cachetools import TLRUCache
from django.core.cache import cache
from prometheus_client import Counter
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

FALLBACK_COUNTERS = 20_000  # per process: a few MB at most
RETRY_CACHE_SECONDS = 5.0

counted_in_process = Counter(
    "trails_ratelimit_fallback",
    "Requests counted in the process because the cache (Redis) could not be reached.",
    ["scope"],
)


class Unavailable(Exception):
    """The request cannot be counted (the cache is down and this process's table is full)."""


def _key(scope: str, subject: str) -> str:
    digest = hashlib.sha256(subject.lower().encode()).hexdigest()[:32]
    return f"ratelimit:{scope}:{digest}"


class _InProcess:
    """The counters of this process while the cache is down: key -> [count, window's end]."""

    def __init__(self, size: int):
        self.counters = TLRUCache(
            maxsize=size, ttu=lambda _key, value, _now: value[1], timer=time.monotonic
        )
        self.lock = threading.Lock()
        self.cache_down_until = 0.0

    def count(self, key: str, window_seconds: int) -> int:
        with self.lock:
            counter = self.counters.get(key)
            if counter is None:
                self.counters.expire()
                if len(self.counters) >= self.counters.maxsize:
                    raise Unavailable
                counter = [0, time.monotonic() + window_seconds]
            counter[0] += 1
            self.counters[key] = counter
            return counter[0]

    def counted(self, key: str) -> int:
        with self.lock:
            counter = self.counters.get(key)
            return counter[0] if counter else 0


_in_process = _InProcess(FALLBACK_COUNTERS)


def _cache_count(key: str, window_seconds: int) -> int:
    # Counting first: in a window already open (most requests) one cache call, not two.
    try:
        return cache.incr(key)
    except ValueError:  # no window open yet
        pass
    if cache.add(key, 1, timeout=window_seconds):
        return 1
    try:
        return cache.incr(key)  # another request opened it meanwhile
    except ValueError:  # and it closed again at once: a new window
        return 1


def _cache_reachable() -> bool:
    return time.monotonic() >= _in_process.cache_down_until


def _cache_failed(error: RedisError) -> None:
    if _cache_reachable():
        logger.warning("Rate limits counted in the process: the cache failed (%s)", error)
    _in_process.cache_down_until = time.monotonic() + RETRY_CACHE_SECONDS


def counted(scope: str, subject: str) -> int:
    """How many requests of `subject` were counted in `scope`'s current window."""
    key = _key(scope, subject)
    if _cache_reachable():
        try:
            return cache.get(key) or 0
        except RedisError as error:
            _cache_failed(error)
    return _in_process.counted(key)


def allow(scope: str, subject: str, *, limit: int, window_seconds: int) -> bool:
    """Count one request of `subject` (a client as core.clients.counted_client gives it, a
    contact) in `scope`; False once more than `limit` were counted in the current window.
    Raises Unavailable when it can be counted nowhere."""
    key = _key(scope, subject)
    if _cache_reachable():
        try:
            return _cache_count(key, window_seconds) <= limit
        except RedisError as error:
            _cache_failed(error)
    counted_in_process.labels(scope).inc()
    return _in_process.count(key, window_seconds) <= limit
