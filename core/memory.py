"""Memory that comes back: after a burst (thousands of streams opened, then closed) the freed
memory stays with the process unless it is handed back. Python returns its emptied arenas to
the C allocator; glibc's malloc keeps freed pages in its heap until asked, so `malloc_trim`
returns every whole free page to the operating system. Elsewhere than glibc (musl, macOS) the
collection alone is done."""

import ctypes
import gc
from collections.abc import Callable
from functools import cache


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    try:
        return ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


def give_back() -> None:
    """Collect garbage cycles, then return the allocator's free pages (a few milliseconds)."""
    gc.collect()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)
