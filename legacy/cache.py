"""A per-process cache of encoded legacy bodies, each valid for one row version.

Maps poll /trails/:id and /ts/:id all day while the data changes a few times an hour; building a
500-trail body costs tens of milliseconds, reading its version (legacy/versions.py) a fraction
of one. Every request reads the version, so a write or a compile is served by every process
from the first request after its commit.
"""

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from legacy.http import Answer

MAX_BYTES = 64 * 1024 * 1024


@dataclass
class _Entry:
    version: str
    answer: Answer


_entries: OrderedDict[tuple[str, str], _Entry] = OrderedDict()
_size = 0
_lock = threading.Lock()


def _store(key: tuple[str, str], entry: _Entry) -> None:
    global _size
    with _lock:
        old = _entries.pop(key, None)
        if old is not None:
            _size -= len(old.answer.body)
        _entries[key] = entry
        _size += len(entry.answer.body)
        while _size > MAX_BYTES and len(_entries) > 1:
            _, evicted = _entries.popitem(last=False)
            _size -= len(evicted.answer.body)


def current(
    route: str, key: str, version_of: Callable[[], str | None], build: Callable[[], Answer]
) -> Answer:
    """The cached answer while its version is current, else a newly built one.

    The version is read before the rows the body is built from, so a body is never cached
    under a version newer than its data: at worst it is rebuilt once more than needed."""
    version = version_of()
    if version is None:
        return build()
    with _lock:
        entry = _entries.get((route, key))
        if entry is not None:
            _entries.move_to_end((route, key))
    if entry is not None and entry.version == version:
        return entry.answer
    answer = build()
    _store((route, key), _Entry(version, answer))
    return answer
