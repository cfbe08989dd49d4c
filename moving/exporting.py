"""A trail system in the import format of `create_trail_system --from-geojson`.

Unlike the published file, the export keeps what a copy needs and the public file leaves out:
stored statuses (None included, not resolved), activities without their derived labels, and
point descriptions and web-cam URLs. Trails come in their list order and points oldest first,
so an import of the export lists them as the original does.
"""

from trails.geometry import lines
from trails.models import Trail, TrailSystem

EXPORT_FORMAT = "trail-status export 1"


def _trail_features(trail: Trail) -> list[dict]:
    properties = {
        "trailId": trail.id,
        "name": trail.name,
        "description": trail.description,
        "status": trail.status,
        "difficulty": trail.difficulty,
        "type": trail.type,
        "lineStyle": trail.line_style,
        "hidden": trail.hidden,
        "oneWay": trail.one_way,
        "oneWayReversed": trail.one_way_reversed,
        "order": trail.order,
        "categories": trail.categories,
        "activities": [
            {
                "value": a.value,
                "status": a.status,
                **({"difficulty": a.difficulty} if a.difficulty else {}),
            }
            for a in trail.activities.all()
        ],
    }
    return [
        {
            "type": "Feature",
            "geometry": {"type": "LineString", "coordinates": part},
            "properties": properties,
        }
        for part in lines(trail.geometry)
    ]


def export_collection(system: TrailSystem) -> dict:
    """The system's live trails (one LineString feature per part, sharing a trailId) and live
    points, with the system's name and id as foreign members for the reader's information."""
    features: list[dict] = []
    trails = (
        Trail.objects.filter(trail_system=system)
        .order_by("order", "created_on", "id")
        .prefetch_related("activities")
    )
    for trail in trails:
        features += _trail_features(trail)
    for point in system.points.order_by("created_on", "id"):
        features.append(
            {
                "type": "Feature",
                "geometry": {"type": "Point", "coordinates": [point.lng, point.lat]},
                "properties": {
                    "pointId": point.id,
                    "name": point.name,
                    "description": point.description,
                    "markerClass": point.marker_class,
                    "status": point.status,
                    "hidden": point.hidden,
                    "waitTime": point.wait_time,
                    "webCamUrl": point.web_cam_url,
                    "diningOptions": point.dining_options,
                },
            }
        )
    return {
        "type": "FeatureCollection",
        "format": EXPORT_FORMAT,
        "trailSystem": {"id": system.id, "name": system.name},
        "features": features,
    }
