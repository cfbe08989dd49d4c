"""Bytes on the wire: the published file of the demo-size system (Killington) and of the
5,102-trail OpenStreetMap network, raw and as sent (gzip, brotli), and the time their
compressed copies take after the compile; the legacy trail list, raw and gzipped; and the
brotli quality of the map files' copies, chosen by time and bytes at 4.4 MB (the OSM
northeast network's data file) and 5.2 MB (the published file of the 5,102-trail system).

Systems are built as bench_publishing builds them (same data, same seed); the files are
written by the local storage backend, which keeps the compressed copies beside each file.
"""

import gzip
import random
import tempfile
import time

import brotli
from django.core.files.storage import default_storage
from django.test import Client, override_settings

from bench.bench_publishing import DATA, DEMO, LARGE, import_system
from core.compression import GZIP_LEVEL, MAP_FILE_BROTLI_QUALITY, map_file_copies
from publishing.models import CompileRequest
from publishing.publisher import compile_pending, compress_published_file
from publishing.storage import ENCODED_SUFFIXES
from trails.models import TrailSystem

REPEATS = 5


def _stored_size(name: str) -> int | str:
    return default_storage.size(name) if default_storage.exists(name) else "not stored"


def _published_bytes(system: TrailSystem) -> dict:
    CompileRequest.objects.create(trail_system=system, reason="bench")
    path = compile_pending(system.pk)
    compress_published_file(path)
    with default_storage.open(path, "rb") as stored:
        body = stored.read()
    times = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        map_file_copies(body)
        times.append(time.perf_counter() - started)
    raw = len(body)
    figures: dict = {"trails": system.trails.count(), "raw bytes": raw}
    for encoding, suffix in ENCODED_SUFFIXES.items():
        size = _stored_size(path + suffix)
        share = f" ({size / raw:.0%} of raw)" if isinstance(size, int) else ""
        figures[f"as sent, {encoding} (bytes)"] = f"{size:,}{share}" if share else size
    figures["compressed copies' time, after the compile (s, best of 5)"] = round(min(times), 3)
    return figures


def _best_of(compress, body: bytes) -> tuple[float, int]:
    times = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        size = len(compress(body))
        times.append(time.perf_counter() - started)
    return min(times), size


def _brotli_qualities(bodies: dict[str, bytes]) -> dict:
    """Time (best of 5) and bytes of gzip and of brotli at the qualities near the chosen one,
    for each body: what MAP_FILE_BROTLI_QUALITY was chosen by."""
    figures: dict = {"chosen brotli quality": MAP_FILE_BROTLI_QUALITY}
    for label, body in bodies.items():
        encoders = {f"gzip {GZIP_LEVEL}": lambda b: gzip.compress(b, GZIP_LEVEL, mtime=0)}
        for quality in (4, 5, 6, 7):
            encoders[f"brotli {quality}"] = lambda b, q=quality: brotli.compress(b, quality=q)
        for name, compress in encoders.items():
            seconds, size = _best_of(compress, body)
            figures[f"{label}, {name}: s / bytes"] = f"{seconds:.3f} / {size:,}"
    return figures


def _legacy_bytes(system: TrailSystem) -> dict:
    client = Client()
    path = f"/legacy/trails/{system.pk}"
    raw = len(client.get(path).content)
    gzipped = len(client.get(path, headers={"Accept-Encoding": "gzip"}).content)
    return {"raw bytes": raw, "as sent, gzip (bytes)": f"{gzipped:,} ({gzipped / raw:.0%} of raw)"}


def run() -> dict[str, dict]:
    rng = random.Random(20260101)
    with (
        tempfile.TemporaryDirectory(prefix="bench-bytes-") as media,
        override_settings(MEDIA_ROOT=media, LEGACY_LISTEN=False),
    ):
        demo = import_system(DEMO, points=40, updates=10, rng=rng)
        large = import_system(LARGE, points=1000, updates=200, rng=rng)
        large_bytes = _published_bytes(large)
        large.refresh_from_db()
        with default_storage.open(large.geo_json_path, "rb") as stored:
            published = stored.read()
        data = (DATA / LARGE).read_bytes()
        return {
            "Bytes: published file of the demo-size system (Killington)": _published_bytes(demo),
            "Bytes: published file of the 5,102-trail OSM northeast system": large_bytes,
            "Bytes: legacy /trails of the 5,102-trail system": _legacy_bytes(large),
            "Bytes: brotli quality of the map files' copies": _brotli_qualities(
                {
                    f"{len(data) / 1e6:.1f} MB (OSM northeast data file)": data,
                    f"{len(published) / 2**20:.1f} MB (5,102-trail published file)": published,
                }
            ),
        }
