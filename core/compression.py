"""Compressed copies of the bodies sent most: the published map files, compressed once after
they are published, and the legacy documents, once per cached body. Never per request.

gzip at level 5 gives within 2% of level 9 at a third of its time (a 5 MB file in about
0.05 s). For a legacy document, made at the first request that accepts it, brotli goes "where
it pays": at quality 4 it is 10% smaller than that gzip on a map-sized body (a 270 KB file in
about 15 ms), but no smaller beyond about a megabyte, so larger bodies go as gzip only. A map
file's copies are made off the freshness path, once per version that stays
(publishing.tasks), at the settings where the bytes a reader saves per CPU second spent stop
paying: brotli quality 5 with a 256 KB window (lgwin 18), 13% smaller than gzip 5 on the
5,102-trail system's 5.5 MB file and quicker than brotli's default 4 MB window, which saves
nothing more on a file of independent features, and 15% smaller on a 300 KB one, which the
window holds whole; quality 6 saves 1% more for 12% more time; gzip stays at 5 for readers
without brotli (measured by `make bench`, bench/bench_bytes.py; the table is in
docs/developers/benchmarks.md).
"""

import gzip
import re
from collections.abc import Iterable

import brotli

GZIP = "gzip"
BROTLI = "br"
GZIP_LEVEL = 5
BROTLI_QUALITY = 4
BROTLI_MAX_BYTES = 1024 * 1024
BROTLI_DEFAULT_WINDOW = 22  # brotli's own default: 4 MB
MAP_FILE_BROTLI_QUALITY = 5
MAP_FILE_BROTLI_WINDOW = 18  # log2 of the window: 256 KB
# Below this a compressed body saves less than its headers cost.
MIN_BYTES = 512
# By preference: what the reader accepts is tried in this order.
ENCODINGS = (BROTLI, GZIP)
_TOKEN = {BROTLI: re.compile(r"\bbr\b"), GZIP: re.compile(r"\bgzip\b")}


def compressed_copies(
    body: bytes,
    *,
    brotli_quality: int = BROTLI_QUALITY,
    brotli_window: int = BROTLI_DEFAULT_WINDOW,
    brotli_max_bytes: int | None = BROTLI_MAX_BYTES,
) -> dict[str, bytes]:
    """The encodings worth keeping for this body, by Content-Encoding token: gzip when it is
    smaller, brotli when it is smaller still and the body is small enough to be quick
    (`brotli_max_bytes`, None: any size)."""
    if len(body) < MIN_BYTES:
        return {}
    copies: dict[str, bytes] = {}
    gzipped = gzip.compress(body, compresslevel=GZIP_LEVEL, mtime=0)
    if len(gzipped) < len(body):
        copies[GZIP] = gzipped
    if brotli_max_bytes is None or len(body) <= brotli_max_bytes:
        brotlied = brotli.compress(body, quality=brotli_quality, lgwin=brotli_window)
        if len(brotlied) < len(copies.get(GZIP, body)):
            copies[BROTLI] = brotlied
    return copies


def map_file_copies(body: bytes) -> dict[str, bytes]:
    """A published map file's copies: made after it is published, so brotli at any size."""
    return compressed_copies(
        body,
        brotli_quality=MAP_FILE_BROTLI_QUALITY,
        brotli_window=MAP_FILE_BROTLI_WINDOW,
        brotli_max_bytes=None,
    )


def static_file_copies(body: bytes) -> dict[str, bytes]:
    """A static file's copies, made once per content when first served (webapp.staticfiles):
    brotli at the map file's quality, so that a fresh checkout's 6 MB of static files (the
    API documentation's bundles most of it) take seconds, not most of a minute at brotli's
    default of 11, for a few hundred bytes more on the map's script."""
    return compressed_copies(body, brotli_quality=MAP_FILE_BROTLI_QUALITY, brotli_max_bytes=None)


def accepted_encoding(accept_encoding: str, available: Iterable[str]) -> str | None:
    """The preferred encoding among `available` that the Accept-Encoding header names, as
    Django's GZipMiddleware reads it (a token present; no q-values)."""
    offered = set(available)
    for encoding in ENCODINGS:
        if encoding in offered and _TOKEN[encoding].search(accept_encoding):
            return encoding
    return None
