"""The legacy documents: plain dicts in the shape existing embeds and apps read.

Each reader runs a fixed number of SQL queries and returns the document with the time it last
changed (for Last-Modified). Trails are read with values() and their geometry as JSON text, so a
500-trail system is shaped without model instances or a parse-and-encode of every geometry.
Unknown ids raise DoesNotExist, and trashed rows or a missing weather snapshot NotAvailable;
the legacy views answer both with 500.
"""

from collections import defaultdict
from datetime import datetime

from django.db.models import F, QuerySet, TextField
from django.db.models.functions import Cast

from legacy.firestore import encode, geopoint, stored_json, timestamp, with_timestamps
from publishing.storage import absolute_public_url
from trails.activities import activity_entry
from trails.fields import LEGACY, POINT, TRAIL, TRAIL_SYSTEM
from trails.geometry import feature_collection, published_json
from trails.models import Point, Trail, TrailActivity, TrailSystem

ACTIVITY_TOTALS = (
    "totalTrails",
    "openTrails",
    "cautionTrails",
    "closedTrails",
    "totalDistance",
    "openDistance",
    "cautionDistance",
    "closedDistance",
)
TRAIL_COLUMNS = (
    "id",
    "trail_system_id",
    *TRAIL.names(LEGACY),
    "distance",
    "lat",
    "lng",
    "created_on",
    "updated_on",
    "geometry_text",
    "elevations_text",
    "language",
)
# The stored weather snapshot is metric; the forecast element says so.
WEATHER_UNITS = {
    "temperature": "celsius",
    "apparentTemperature": "celsius",
    "humidity": "percent",
    "windSpeed": "km/h",
    "windGusts": "km/h",
    "windDirection": "degrees",
    "precipitation": "mm",
    "snowfall": "cm",
    "cloudCover": "percent",
}


def latest(*moments: datetime | None) -> datetime | None:
    return max((m for m in moments if m is not None), default=None)


def _system_activity(entry: dict) -> dict:
    totals = {key: entry.get(key, 0) for key in ACTIVITY_TOTALS}
    return {
        "value": entry.get("value"),
        "label": entry.get("label"),
        "iconClass": entry.get("iconClass"),
        **totals,
    }


def system_document(system_id: str) -> tuple[dict, datetime | None]:
    """GET /ts/:id: the stored document without users, permissions, owner and audit names."""
    system = TrailSystem.objects.get(pk=system_id)
    document = {
        **{key: getattr(system, name) for key, name in TRAIL_SYSTEM.keys(LEGACY)},
        "geolocation": geopoint(system.lat, system.lng),
        "totalTrails": system.total_trails,
        "openTrails": system.open_trails,
        "cautionTrails": system.caution_trails,
        "closedTrails": system.closed_trails,
        "totalDistance": system.total_distance,
        # The legacy figure always counted Caution trails as open.
        "openDistance": system.open_distance + system.caution_distance,
        "activities": [_system_activity(entry) for entry in system.activity_totals],
        "updates": with_timestamps(system.published_updates),
        "subscription": system.subscription,
        "createdOn": timestamp(system.created_on),
        "updatedOn": timestamp(system.updated_on),
        "geoJsonUrl": absolute_public_url(system.geo_json_path),
        "iconPath": system.icon_path or False,
    }
    if system.weather:
        document["weather"] = with_timestamps(system.weather)
    if system.related_trail_systems:
        document["relatedTrailSystems"] = [
            {"tsId": related.get("tsId"), "name": related.get("name")}
            for related in system.related_trail_systems
        ]
    if system.hidden_activities is not None:
        document["hiddenActivities"] = system.hidden_activities
    changed = latest(system.updated_on, system.compiled_on, system.weather_updated_on)
    return document, changed


class NotAvailable(Exception):
    """What was asked for does not exist for the legacy interface (trashed, or no weather)."""


def _trail_rows(trails: QuerySet) -> list[dict]:
    return list(
        trails.annotate(
            geometry_text=Cast("geometry", TextField()),
            elevations_text=Cast("elevations", TextField()),
            language=F("trail_system__language"),
        ).values(*TRAIL_COLUMNS)
    )


def _activities_by_trail(activities: QuerySet, language: str) -> dict[str, list[dict]]:
    grouped: dict[str, list[dict]] = defaultdict(list)
    rows = activities.order_by("trail_id", "position", "id").values_list(
        "trail_id", "value", "status", "difficulty"
    )
    for trail_id, value, status, difficulty in rows:
        grouped[trail_id].append(activity_entry(value, status, difficulty, language))
    return grouped


def _trail_document(row: dict, activities: list[dict], *, with_id: bool) -> dict:
    document = {"id": row["id"]} if with_id else {}
    document.update(
        {
            "trailSystemId": row["trail_system_id"],
            **{key: row[name] for key, name in TRAIL.keys(LEGACY)},
            "activities": activities,
            "distance": row["distance"],
            "geolocation": geopoint(row["lat"], row["lng"]),
            "geoJson": encode(
                feature_collection(stored_json(published_json(row["geometry_text"].encode())))
            ).decode(),
            "elevations": stored_json(row["elevations_text"]) or False,
            "createdOn": timestamp(row["created_on"]),
            "updatedOn": timestamp(row["updated_on"]),
        }
    )
    return document


def trails_documents(system_id: str) -> tuple[list[dict], datetime | None]:
    """GET /trails/:id: every live trail of the system by order, each with its id."""
    system = TrailSystem.objects.values("language", "updated_on", "compiled_on").get(pk=system_id)
    rows = _trail_rows(
        Trail.objects.filter(trail_system_id=system_id).order_by("order", "created_on", "id")
    )
    activities = _activities_by_trail(
        TrailActivity.objects.filter(
            trail__trail_system_id=system_id, trail__trashed_on__isnull=True
        ),
        system["language"],
    )
    documents = [_trail_document(row, activities[row["id"]], with_id=True) for row in rows]
    changed = latest(
        system["updated_on"], system["compiled_on"], *(row["updated_on"] for row in rows)
    )
    return documents, changed


def trail(trail_id: str) -> tuple[dict, datetime | None]:
    """GET /trail/:id: one live trail, the same fields as in the list but without its id."""
    rows = _trail_rows(Trail.objects.filter(pk=trail_id))
    if not rows:
        raise NotAvailable(f"No live trail {trail_id!r}.")
    row = rows[0]
    activities = _activities_by_trail(
        TrailActivity.objects.filter(trail_id=trail_id), row["language"]
    )
    return _trail_document(row, activities[trail_id], with_id=False), row["updated_on"]


def point(point_id: str) -> tuple[dict, datetime | None]:
    """GET /point/:id: one live point with the spec's twelve fields."""
    p = Point.objects.get(pk=point_id)
    document = {key: getattr(p, name) for key, name in POINT.keys(LEGACY)}
    # Boolean or object in the interface; never null.
    if document["diningOptions"] is None:
        document["diningOptions"] = False
    document |= {
        "geolocation": geopoint(p.lat, p.lng),
        "trailSystemId": p.trail_system_id,
        "createdOn": timestamp(p.created_on),
        "updatedOn": timestamp(p.updated_on),
    }
    return document, p.updated_on


def forecast(system_id: str) -> tuple[list[dict], datetime | None]:
    """GET /weather/:id: a one-element forecast from the stored hourly snapshot."""
    weather, observed = TrailSystem.objects.values_list("weather", "weather_updated_on").get(
        pk=system_id
    )
    if not weather:
        raise NotAvailable(f"Trail system {system_id!r} has no weather snapshot.")
    return [{**with_timestamps(weather), "units": WEATHER_UNITS}], observed
