"""A per-process cache of encoded legacy bodies, each valid for one row version.

Maps poll /trails/:id and /ts/:id all day while the data changes a few times an hour; building a
500-trail body costs tens of milliseconds. While the process listens for changes
(legacy/listener.py) a cached body is served with no query until a commit changes its system;
otherwise every request reads the row versions (legacy/versions.py): a fraction of a
millisecond for /ts, a few for /trails of a large system. Either way a write or a compile is
served from the first request after its commit.
"""

import threading
from collections.abc import Callable
from dataclasses import dataclass

from cachetools import LRUCache

from legacy import listener
from legacy.http import Answer

MAX_BYTES = 64 * 1024 * 1024


@dataclass
class _Entry:
    version: str
    stamp: listener.Stamp | None
    answer: Answer


def _body_bytes(entry: _Entry) -> int:
    return len(entry.answer.body)


# Least recently served bodies leave first beyond MAX_BYTES. The cache is not thread-safe.
_entries: LRUCache[tuple[str, str], _Entry] = LRUCache(MAX_BYTES, getsizeof=_body_bytes)
_lock = threading.Lock()


def _store(key: tuple[str, str], entry: _Entry) -> None:
    with _lock:
        try:
            _entries[key] = entry
        except ValueError:  # a body larger than the whole cache is served, never kept
            _entries.pop(key, None)


def current(
    route: str,
    system_id: str,
    version_of: Callable[[str], str | None],
    build: Callable[[], Answer],
) -> Answer:
    """The cached answer of one system's route while it is current, else a newly built one.

    The stamp is taken before the row version and the version before the rows the body is
    built from, so a body is never kept under a stamp or a version newer than its data: at
    worst it is rebuilt once more than needed."""
    key = (route, system_id)
    stamp = listener.stamp(system_id)
    with _lock:
        entry = _entries.get(key)  # now the most recently served
    if entry is not None and stamp is not None and entry.stamp == stamp:
        return entry.answer
    version = version_of(system_id)
    if version is None:
        return build()
    if entry is not None and entry.version == version:
        entry.stamp = stamp
        return entry.answer
    answer = build()
    _store(key, _Entry(version, stamp, answer))
    return answer
