"""Where published files live in Django's storage (publishing issue writes them)."""

import orjson
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from trails.models import TrailSystem

# The legacy all-systems FeatureCollection, rebuilt every 3 hours.
ALL_SYSTEMS_NAME = "published/trail-systems.geojson"


def public_url(path: str) -> str:
    return default_storage.url(path) if path else ""


def _all_systems_collection() -> dict:
    features = []
    systems = TrailSystem.objects.filter(
        inactive=False, blocked=False, lat__isnull=False, lng__isnull=False
    )
    for system in systems:
        properties = {
            "name": system.name,
            "tsId": system.id,
            "openTrails": system.open_trails,
            "cautionTrails": system.caution_trails,
            "closedTrails": system.closed_trails,
            "activities": [entry.get("value") for entry in system.activity_totals],
        }
        if system.hidden_activities:
            properties["hiddenActivities"] = system.hidden_activities
        features.append(
            {
                "type": "Feature",
                "geometry": {"type": "Point", "coordinates": [system.lng, system.lat]},
                "properties": properties,
            }
        )
    return {"type": "FeatureCollection", "features": features}


def read_all_systems_file() -> bytes:
    """The stored all-systems file; built now if the 3-hourly rebuild has not run yet."""
    if not default_storage.exists(ALL_SYSTEMS_NAME):
        data = orjson.dumps(_all_systems_collection())
        default_storage.save(ALL_SYSTEMS_NAME, ContentFile(data))
        return data
    with default_storage.open(ALL_SYSTEMS_NAME, "rb") as stored:
        return stored.read()
