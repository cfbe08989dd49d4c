"""Values kept a while in Django's cache to spare a query. The cache only saves work: while
it cannot be reached (Redis down), the value is computed each time, never an error."""

import contextlib
from collections.abc import Callable
from typing import TypeVar

from django.core.cache import cache
from redis.exceptions import RedisError

Value = TypeVar("Value")
_MISSING = object()


def cached(key: str, compute: Callable[[], Value], timeout: float) -> Value:
    """The value kept under `key`, or `compute()`'s, then kept `timeout` seconds."""
    try:
        value = cache.get(key, _MISSING)
    except RedisError:
        return compute()
    if value is _MISSING:
        value = compute()
        with contextlib.suppress(RedisError):
            cache.set(key, value, timeout)
    return value
