"""Where published files live in Django's storage, and how they are written.

Map files get a new name on every compile (date and random suffix), so they can be cached
for a year; the all-systems file keeps one name and a short cache lifetime. A replaced map
file stays for a grace period (settings.MAP_FILE_GRACE): a poller that read a legacy document
just before a compile fetches the file it names just after.
"""

import mimetypes
import secrets
from datetime import UTC, datetime, timedelta
from itertools import pairwise

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

GEOJSON_CONTENT_TYPE = "application/geo+json"
MAP_FILES_DIR = "published/maps"
# The legacy all-systems FeatureCollection, rebuilt every 3 hours.
ALL_SYSTEMS_NAME = "published/trail-systems.geojson"
IMMUTABLE_CACHE_CONTROL = "public, max-age=31536000, immutable"
ALL_SYSTEMS_CACHE_CONTROL = "public, max-age=300"


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


def _map_file_time(file_name: str) -> datetime | None:
    try:
        return datetime.strptime(file_name.split("-", 1)[0], _MAP_STAMP).replace(tzinfo=UTC)
    except ValueError:
        return None


def remove_replaced_map_files(system_id: str, current: str, now: datetime, grace: timedelta) -> int:
    """Delete the system's map files replaced more than grace before now; returns how many.

    No record of replacements is kept: a file was replaced when the compile that wrote the
    next name started, the time in that name. The newest file is never deleted (it is the
    current one, or a compile's that has not committed yet), nor the current one (a newer
    file may be the leftover of a failed compile). Files not named by new_map_name are left
    alone."""
    directory = f"{MAP_FILES_DIR}/{system_id}"
    try:
        files = default_storage.listdir(directory)[1]
    except FileNotFoundError:
        return 0
    stamped = sorted((time, name) for name in files if (time := _map_file_time(name)))
    removed = 0
    for (_, name), (replaced_on, _) in pairwise(stamped):
        path = f"{directory}/{name}"
        if replaced_on <= now - grace and path != current:
            default_storage.delete(path)
            removed += 1
    return removed


def write_file(name: str, body: bytes) -> str:
    """Store body under name; returns the stored name."""
    content = ContentFile(body)
    content.content_type = GEOJSON_CONTENT_TYPE
    return default_storage.save(name, content)


def delete_file(name: str) -> None:
    if name:
        default_storage.delete(name)


def replace_file(name: str, body: bytes) -> None:
    """Overwrite a file that keeps its name (local storage would otherwise rename)."""
    delete_file(name)
    write_file(name, body)


def public_url(path: str) -> str:
    return default_storage.url(path) if path else ""
