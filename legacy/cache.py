"""A per-process cache of encoded legacy bodies, each valid for one row version.

Maps poll /trails/:id and /ts/:id all day while the data changes a few times an hour; building a
500-trail body costs tens of milliseconds, checking its version well under one.
"""

import threading
from collections import OrderedDict
from collections.abc import Callable

from legacy.http import Answer

MAX_BYTES = 64 * 1024 * 1024

_entries: OrderedDict[tuple[str, str], tuple[str, Answer]] = OrderedDict()
_size = 0
_lock = threading.Lock()


def current(route: str, key: str, version: str | None, build: Callable[[], Answer]) -> Answer:
    """The cached answer when its version is still current, else a newly built one."""
    global _size
    if version is None:
        return build()
    with _lock:
        cached = _entries.get((route, key))
        if cached is not None and cached[0] == version:
            _entries.move_to_end((route, key))
            return cached[1]
    answer = build()
    with _lock:
        old = _entries.pop((route, key), None)
        if old is not None:
            _size -= len(old[1].body)
        _entries[(route, key)] = (version, answer)
        _size += len(answer.body)
        while _size > MAX_BYTES and len(_entries) > 1:
            _, (_, evicted) = _entries.popitem(last=False)
            _size -= len(evicted.body)
    return answer
