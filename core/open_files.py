"""The process's open-file limit, which bounds how many streams it can hold: each open stream
is a socket, and so is every database, Redis and ordinary request's connection."""

import resource

# What a process whose limit is unbounded counts with.
UNBOUNDED = 65_536
# Files kept for everything but streams: at least this many, or a tenth of the limit.
RESERVED_MIN = 100
RESERVED_SHARE = 10


def open_file_limit() -> int:
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return UNBOUNDED if soft == resource.RLIM_INFINITY else soft


def raise_open_file_limit() -> None:
    """Raise the soft limit to the hard one, as long-lived servers do (Go's runtime does it for
    every program): the default soft limit (often 1,024) would cap a stream process far below
    what the host allows."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = UNBOUNDED if hard == resource.RLIM_INFINITY else hard
    if soft != resource.RLIM_INFINITY and soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


def streams_for_open_files(limit: int) -> int:
    """STREAM_MAX_CONNECTIONS' default: the limit less what the rest of the process needs."""
    return max(limit - max(RESERVED_MIN, limit // RESERVED_SHARE), 1)
