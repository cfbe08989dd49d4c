"""Where published files live in Django's storage, and how they are written.

Map files get a new name on every compile (date and random suffix), so they can be cached
for a year; the all-systems file keeps one name and a short cache lifetime.
"""

import mimetypes
import secrets
from datetime import datetime

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


def new_map_name(system_id: str, now: datetime) -> str:
    """A name never used before: the system, the UTC time and 64 random bits."""
    return f"{MAP_FILES_DIR}/{system_id}/{now:%Y%m%dT%H%M%S%fZ}-{secrets.token_hex(8)}.geojson"


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
