"""Compressed copies of the bodies sent most: the published map files, compressed once when
written, and the legacy documents, once per cached body. Never per request.

gzip at level 5 gives within 2% of level 9 at a third of its time (a 5 MB file in about
0.14 s, inside a compile). Brotli "where it pays": at quality 4 it is 10% smaller than that
gzip on a map-sized body (a 270 KB file in about 15 ms), but slower than it and no smaller
beyond about a megabyte, so larger bodies go as gzip only. Quality 11, 30% smaller, takes a
second per 270 KB: too slow for a file that must be published within a second.
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
# Below this a compressed body saves less than its headers cost.
MIN_BYTES = 512
# By preference: what the reader accepts is tried in this order.
ENCODINGS = (BROTLI, GZIP)
_TOKEN = {BROTLI: re.compile(r"\bbr\b"), GZIP: re.compile(r"\bgzip\b")}


def compressed_copies(body: bytes) -> dict[str, bytes]:
    """The encodings worth keeping for this body, by Content-Encoding token: gzip when it is
    smaller, brotli when it is smaller still and the body is small enough to be quick."""
    if len(body) < MIN_BYTES:
        return {}
    copies: dict[str, bytes] = {}
    gzipped = gzip.compress(body, compresslevel=GZIP_LEVEL, mtime=0)
    if len(gzipped) < len(body):
        copies[GZIP] = gzipped
    if len(body) <= BROTLI_MAX_BYTES:
        brotlied = brotli.compress(body, quality=BROTLI_QUALITY)
        if len(brotlied) < len(copies.get(GZIP, body)):
            copies[BROTLI] = brotlied
    return copies


def accepted_encoding(accept_encoding: str, available: Iterable[str]) -> str | None:
    """The preferred encoding among `available` that the Accept-Encoding header names, as
    Django's GZipMiddleware reads it (a token present; no q-values)."""
    offered = set(available)
    for encoding in ENCODINGS:
        if encoding in offered and _TOKEN[encoding].search(accept_encoding):
            return encoding
    return None
