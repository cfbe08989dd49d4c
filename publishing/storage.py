"""Where published files live in Django's storage, and how they are written.

Map files get a new name on every compile (date and random suffix), so they can be cached
for a year; the all-systems file keeps one name and a short cache lifetime. A replaced map
file stays for a grace period (settings.MAP_FILE_GRACE): a poller that read a legacy document
just before a compile fetches the file it names just after (publishing.publisher decides when
a file goes).
"""

import mimetypes
import secrets
from datetime import UTC, datetime

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from core.compression import BROTLI, GZIP

GEOJSON_CONTENT_TYPE = "application/geo+json"
MAP_FILES_DIR = "published/maps"
# The legacy all-systems FeatureCollection, rebuilt every 3 hours.
ALL_SYSTEMS_NAME = "published/trail-systems.geojson"
IMMUTABLE_CACHE_CONTROL = "public, max-age=31536000, immutable"
ALL_SYSTEMS_CACHE_CONTROL = "public, max-age=300"
# The names of a published file's compressed copies on local disk (storage_backends).
ENCODED_SUFFIXES = {GZIP: ".gz", BROTLI: ".br"}


def is_published_file(name: str) -> bool:
    """A map file or the all-systems file, not one of their compressed copies."""
    return name.endswith(".geojson")


def register_content_type() -> None:
    """Python's own table lacks .geojson; storages and the media view guess from it."""
    mimetypes.add_type(GEOJSON_CONTENT_TYPE, ".geojson")


def cache_control(name: str) -> str:
    """By stored name, which object storages may prefix with a location."""
    return ALL_SYSTEMS_CACHE_CONTROL if name.endswith(ALL_SYSTEMS_NAME) else IMMUTABLE_CACHE_CONTROL


_MAP_STAMP = "%Y%m%dT%H%M%S%fZ"


def new_map_name(system_id: str, now: datetime) -> str:
    """A name never used before: the system, the UTC time and 64 random bits."""
    return f"{MAP_FILES_DIR}/{system_id}/{now:{_MAP_STAMP}}-{secrets.token_hex(8)}.geojson"


def map_file_time(path: str) -> datetime | None:
    """When the compile that wrote the file started, from its name (None: not a map file)."""
    try:
        stamp = path.rsplit("/", 1)[-1].split("-", 1)[0]
        return datetime.strptime(stamp, _MAP_STAMP).replace(tzinfo=UTC)
    except ValueError:
        return None


def list_map_files(system_id: str) -> list[str]:
    """The paths of the system's stored map files: one listing of its folder, a LIST request
    on an object storage, so only the sweep and a system's deletion call it, never a compile."""
    directory = f"{MAP_FILES_DIR}/{system_id}"
    try:
        names = default_storage.listdir(directory)[1]
    except FileNotFoundError:
        return []
    return [f"{directory}/{name}" for name in names if is_published_file(name)]


def write_file(name: str, body: bytes, *, compress_later: bool = False) -> str:
    """Store body under name, compressed as the backend stores it (storage_backends), or
    as written when `compress_later` (compress_file follows); returns the stored name."""
    content = ContentFile(body)
    content.content_type = GEOJSON_CONTENT_TYPE
    content.compress_later = compress_later
    return default_storage.save(name, content)


def compress_file(name: str, *, min_bytes: int = 0) -> bool:
    """Store the compressed copies of a file written with `compress_later`: readers get them
    from then on, the file as written until then. False when the file is gone, or smaller
    than `min_bytes` (written with its copies: publishing.publisher.copies_made_in_compile)."""
    try:
        with default_storage.open(name, "rb") as stored:
            body = stored.read()
    except FileNotFoundError:
        return False
    if len(body) < min_bytes:
        return False
    return default_storage.store_compressed(name, body)


def delete_file(name: str) -> None:
    if name:
        default_storage.delete(name)


def replace_file(name: str, body: bytes) -> None:
    """Overwrite a file that keeps its name (local storage would otherwise rename)."""
    delete_file(name)
    write_file(name, body)


def public_url(path: str) -> str:
    return default_storage.url(path) if path else ""


def absolute_public_url(path: str) -> str | None:
    """The file's address as pages on any site fetch it (the legacy geoJsonUrl, the live map
    streams): storage URLs are relative for local disk, so PUBLIC_BASE_URL goes in front."""
    url = public_url(path)
    if not url:
        return None
    return url if "://" in url else f"{settings.PUBLIC_BASE_URL}{url}"
