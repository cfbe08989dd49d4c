"""Static files: a finder that serves a few chosen files of an npm package, not all of it,
and WhiteNoise serving every compressible file with its gzip and brotli copies."""

import hashlib
import logging
import os
import secrets
from pathlib import Path

from django.conf import settings
from django.contrib.staticfiles.finders import BaseFinder
from django.core.files.storage import FileSystemStorage
from whitenoise.compress import Compressor
from whitenoise.middleware import WhiteNoiseMiddleware

from core.compression import BROTLI, GZIP, static_file_copies

logger = logging.getLogger(__name__)

# URL prefix under STATIC_URL -> (package folder in node_modules, the files served from it).
NPM_FILES = {
    "vendor/firebase": (
        "firebase",
        ["firebase-app-compat.js", "firebase-auth-compat.js"],
    ),
}


class NpmFilesFinder(BaseFinder):
    """Finds only the files NPM_FILES names (the Firebase package is 54 MB, we need 170 kB)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.storages = {}
        for prefix, (package, names) in NPM_FILES.items():
            storage = FileSystemStorage(location=Path(settings.NODE_MODULES) / package)
            storage.prefix = prefix
            self.storages[prefix] = (storage, names)

    def find(self, path, find_all=False, **kwargs):
        """Like Django's own finders, [] when not found (also without find_all): a None would
        reach django.contrib.staticfiles.finders.find's list of matches, which WhiteNoise then
        takes for a path and fails on (a 500 for any missing file when it re-reads files)."""
        prefix, _, name = path.rpartition("/")
        storage, names = self.storages.get(prefix, (None, ()))
        if name not in names or not storage.exists(name):
            return []
        found = storage.path(name)
        return [found] if find_all else found

    def list(self, ignore_patterns):
        for storage, names in self.storages.values():
            for name in names:
                if storage.exists(name):
                    yield name, storage


# Source maps are fetched by a developer's tools only, and are half of the static files' bytes
# (the API documentation's bundles): compressing them would double a fresh start's work.
_COMPRESSOR = Compressor(extensions=(*Compressor.SKIP_COMPRESS_EXTENSIONS, "map"), quiet=True)
_SUFFIXES = {GZIP: ".gz", BROTLI: ".br"}


def _write_whole(target: Path, body: bytes, mtime: float) -> None:
    """Renamed into place, so another process never serves half a file."""
    partial = target.with_name(f".{target.name}.{secrets.token_hex(4)}")
    partial.write_bytes(body)
    os.utime(partial, (mtime, mtime))
    os.replace(partial, target)


def compressed_beside(path: str) -> str:
    """A path to the file with its .gz and .br copies beside it: the file's own when they are
    there (Leaflet, compressed by `make assets`), else a copy under STATIC_COPIES_ROOT, made
    once per content (again when the file's size or time changes). The file itself when it
    is not worth compressing or the copies cannot be written."""
    source = Path(path)
    if (
        not _COMPRESSOR.should_compress(source.name)
        or WhiteNoiseMiddleware.is_compressed_variant(path)
        or any(Path(path + suffix).is_file() for suffix in _SUFFIXES.values())
    ):
        return path
    try:
        stat = source.stat()
        folder = (
            Path(settings.STATIC_COPIES_ROOT)
            / hashlib.blake2b(
                f"{source.resolve()}:{stat.st_size}:{stat.st_mtime_ns}".encode(), digest_size=10
            ).hexdigest()
        )
        copy = folder / source.name
        if not copy.is_file():
            folder.mkdir(parents=True, exist_ok=True)
            body = source.read_bytes()
            for encoding, compressed in static_file_copies(body).items():
                _write_whole(
                    folder / (source.name + _SUFFIXES[encoding]), compressed, stat.st_mtime
                )
            _write_whole(copy, body, stat.st_mtime)  # last: it marks the folder complete
        return str(copy)
    except OSError:
        logger.warning("static file %s served without compressed copies", path, exc_info=True)
        return path


class CompressedStaticFilesMiddleware(WhiteNoiseMiddleware):
    """WhiteNoise straight from the finders (no collectstatic step), each text file sent as
    brotli or gzip to a browser that accepts it. WhiteNoise looks for a file's copies beside
    it; the repository's own files have none, so they are served from STATIC_COPIES_ROOT
    with theirs (compressed at first use, by content). Under STATIC_AUTOREFRESH an edited file
    gets new copies at its next request."""

    def get_static_file(self, path, url, stat_cache=None):
        served = compressed_beside(path)
        if served != path:
            stat_cache = None  # the copies' folder is not in the finders' listing
        return super().get_static_file(served, url, stat_cache=stat_cache)
