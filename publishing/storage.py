"""Where published files live in Django's storage (publishing issue writes them)."""

from django.core.files.storage import default_storage

# The legacy all-systems FeatureCollection, rebuilt every 3 hours.
ALL_SYSTEMS_NAME = "published/trail-systems.geojson"


def public_url(path: str) -> str:
    return default_storage.url(path) if path else ""
