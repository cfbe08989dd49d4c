"""Bytes on the wire: the published file of the demo-size system (Killington) and of the
5,102-trail OpenStreetMap network, raw and as sent (gzip, brotli), and the time their
compressed copies take after the compile; the legacy trail list, raw and gzipped; and the
settings of the map files' copies (gzip's level, brotli's quality and window), chosen by the
bytes each step saves per CPU second it costs, on the published files of the 5,102-trail
system (5.5 MB) and of the demo-size one (0.3 MB).

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

from bench.bench_publishing import DEMO, LARGE, import_system
from core.compression import (
    GZIP_LEVEL,
    MAP_FILE_BROTLI_QUALITY,
    MAP_FILE_BROTLI_WINDOW,
    map_file_copies,
)
from publishing.models import CompileRequest
from publishing.publisher import compile_pending, compress_published_file
from publishing.storage import ENCODED_SUFFIXES
from trails.models import TrailSystem

REPEATS = 5


def _stored_size(name: str) -> int | str:
    return default_storage.size(name) if default_storage.exists(name) else "not stored"


def _published_bytes(system: TrailSystem) -> dict:
    CompileRequest.objects.create(trail_system=system, reason="bench")
    path = compile_pending(system.pk).path
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


def _cpu_best_of(compress, body: bytes) -> tuple[float, int]:
    """CPU seconds (best of REPEATS) and bytes of one compression: the CPU is what the
    copies take from the machine, whatever else runs on it."""
    times = []
    for _ in range(REPEATS):
        started = time.process_time()
        size = len(compress(body))
        times.append(time.process_time() - started)
    return min(times), size


# Each family from its cheapest setting up: a step is worth it while it saves enough bytes
# per CPU second more than the setting before it.
COPY_SETTINGS = {
    "gzip": [
        (f"gzip {level}", lambda b, level=level: gzip.compress(b, level, mtime=0))
        for level in (1, 4, 5, 6, 9)
    ],
    **{
        f"brotli, window 2^{window}": [
            (
                f"brotli {quality} (2^{window})",
                lambda b, q=quality, w=window: brotli.compress(b, quality=q, lgwin=w),
            )
            for quality in (3, 4, 5, 6, 7)
        ]
        for window in (16, 18, 22)
    },
}


def _copy_settings(bodies: dict[str, bytes]) -> dict:
    """For each body and setting: CPU seconds, bytes, and the bytes saved per CPU second
    against the setting before it in its family (what the chosen settings were chosen by)."""
    figures: dict = {
        "chosen": f"gzip {GZIP_LEVEL}; brotli {MAP_FILE_BROTLI_QUALITY}, window "
        f"2^{MAP_FILE_BROTLI_WINDOW}",
        "columns": "CPU s / bytes / bytes saved per CPU s against the step before",
    }
    for label, body in bodies.items():
        for family in COPY_SETTINGS.values():
            before = None
            for name, compress in family:
                seconds, size = _cpu_best_of(compress, body)
                step = "-"
                if before is not None and seconds > before[0]:
                    step = f"{(before[1] - size) / (seconds - before[0]) / 1e6:.1f} MB"
                figures[f"{label}, {name}"] = f"{seconds:.3f} / {size:,} / {step}"
                before = (seconds, size)
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
        demo_bytes = _published_bytes(demo)
        large_bytes = _published_bytes(large)
        files = {}
        for system in (large, demo):
            system.refresh_from_db()
            with default_storage.open(system.geo_json_path, "rb") as stored:
                files[f"{system.trails.count():,} trails"] = stored.read()
        return {
            "Bytes: published file of the demo-size system (Killington)": demo_bytes,
            "Bytes: published file of the 5,102-trail OSM northeast system": large_bytes,
            "Bytes: legacy /trails of the 5,102-trail system": _legacy_bytes(large),
            "Bytes: settings of the map files' copies": _copy_settings(files),
        }
