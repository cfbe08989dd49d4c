"""Fixed-window request counters in Django's cache (Redis in production, memory otherwise)."""

import hashlib

from django.core.cache import cache


def _key(scope: str, subject: str) -> str:
    digest = hashlib.sha256(subject.lower().encode()).hexdigest()[:32]
    return f"ratelimit:{scope}:{digest}"


def counted(scope: str, subject: str) -> int:
    """How many requests of `subject` were counted in `scope`'s current window."""
    return cache.get(_key(scope, subject)) or 0


def allow(scope: str, subject: str, *, limit: int, window_seconds: int) -> bool:
    """Count one request of `subject` (a client as core.clients.counted_client gives it, a
    contact) in `scope`; False once more than `limit` were counted in the current window."""
    key = _key(scope, subject)
    # Counting first: in a window already open (most requests) one cache call, not two.
    try:
        return cache.incr(key) <= limit
    except ValueError:  # no window open yet
        pass
    if cache.add(key, 1, timeout=window_seconds):
        return limit >= 1
    try:
        return cache.incr(key) <= limit  # another request opened it meanwhile
    except ValueError:  # and it closed again at once: a new window
        return limit >= 1
