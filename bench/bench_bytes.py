"""Bytes on the wire: the published file of the demo-size system (Killington) and of the
5,102-trail OpenStreetMap network, raw and as sent (gzip, brotli), and the time their
compressed copies add to a compile; the legacy trail list, raw and gzipped.

Systems are built as bench_publishing builds them (same data, same seed); the files are
written by the local storage backend, which keeps the compressed copies beside each file.
"""

import random
import tempfile
import time

from django.core.files.storage import default_storage
from django.test import Client, override_settings

from bench.bench_publishing import DEMO, LARGE, import_system
from core.compression import compressed_copies
from publishing.models import CompileRequest
from publishing.publisher import compile_pending
from publishing.storage import ENCODED_SUFFIXES
from trails.models import TrailSystem

REPEATS = 5


def _stored_size(name: str) -> int | str:
    return default_storage.size(name) if default_storage.exists(name) else "not stored"


def _published_bytes(system: TrailSystem) -> dict:
    CompileRequest.objects.create(trail_system=system, reason="bench")
    path = compile_pending(system.pk)
    with default_storage.open(path, "rb") as stored:
        body = stored.read()
    times = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        compressed_copies(body)
        times.append(time.perf_counter() - started)
    raw = len(body)
    figures: dict = {"trails": system.trails.count(), "raw bytes": raw}
    for encoding, suffix in ENCODED_SUFFIXES.items():
        size = _stored_size(path + suffix)
        share = f" ({size / raw:.0%} of raw)" if isinstance(size, int) else ""
        figures[f"as sent, {encoding} (bytes)"] = f"{size:,}{share}" if share else size
    figures["compressed copies' time in the compile (s, best of 5)"] = round(min(times), 3)
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
        return {
            "Bytes: published file of the demo-size system (Killington)": _published_bytes(demo),
            "Bytes: published file of the 5,102-trail OSM northeast system": _published_bytes(
                large
            ),
            "Bytes: legacy /trails of the 5,102-trail system": _legacy_bytes(large),
        }
