"""Fixed-window request counters in Django's cache (Redis in production, memory otherwise)."""

import hashlib

from django.core.cache import cache
from django.http import HttpRequest


def allow(scope: str, subject: str, *, limit: int, window_seconds: int) -> bool:
    """Count one request of `subject` (a client address, a contact) in `scope`; False once
    more than `limit` were counted in the current window."""
    digest = hashlib.sha256(subject.lower().encode()).hexdigest()[:32]
    key = f"ratelimit:{scope}:{digest}"
    if cache.add(key, 1, timeout=window_seconds):
        return True
    try:
        return cache.incr(key) <= limit
    except ValueError:  # expired between add and incr: a new window
        cache.add(key, 1, timeout=window_seconds)
        return True


def client_address(request: HttpRequest) -> str:
    """The peer address; a proxy in front must pass the client's as REMOTE_ADDR."""
    return request.META.get("REMOTE_ADDR", "")
