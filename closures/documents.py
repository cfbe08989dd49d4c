"""The closures file, /feeds/<system id>/closures.geojson: pure, no database. One feature per
closure in effect, its stretch as the geometry; written by every write that changes what is in
effect and by each compile of the published file (closures.services.publish_closures)."""

import hashlib
from collections.abc import Sequence

import orjson
from django.utils import translation

from closures.models import Closure
from closures.reasons import Reason
from closures.routes import RouteCheck
from closures.selectors import Stretch
from core.dates import iso_ms


def reason_text(reason: str, language: str) -> str:
    """The reason in the system's language, whatever the active one."""
    with translation.override(language):
        return str(Reason(reason).label)


def closure_feature(closure: Closure, stretch: Stretch, language: str) -> dict:
    return {
        "type": "Feature",
        "id": closure.pk,
        "properties": {
            "id": closure.pk,
            "trailId": closure.trail_id,
            "trailName": closure.trail.name,
            "activities": list(closure.activities),
            "reason": closure.reason,
            "reasonText": reason_text(closure.reason, language),
            "note": closure.note,
            "startsAt": iso_ms(closure.starts_at),
            "endsAt": iso_ms(closure.ends_at),
            "detour": closure.detour,
            "detourGeometry": closure.detour_geometry,
            "fromMeters": round(stretch.from_meters, 1),
            "toMeters": round(stretch.to_meters, 1),
            "lengthMeters": round(stretch.length_meters, 1),
            "wholeTrail": closure.whole_trail,
        },
        "geometry": stretch.geometry,
    }


def closures_file(
    system_id: str,
    closures: Sequence[Closure],
    stretches: dict[str, Stretch],
    language: str,
) -> bytes:
    features = [closure_feature(c, stretches[c.pk], language) for c in closures]
    return orjson.dumps(
        {"type": "FeatureCollection", "trailSystemId": system_id, "features": features}
    )


def closures_version(body: bytes) -> str:
    """A closures file's version, what the live stream's `closures` events name: its ETag
    without the quotes, the digest Django's set_response_etag makes of it (public.feed_http),
    so a page reads the file again only when it is not the one it has."""
    return hashlib.md5(body, usedforsecurity=False).hexdigest()


def route_check_document(system_id: str, check: RouteCheck, language: str) -> dict:
    """The answer of a route check (the API's and the public one's)."""
    return {
        "trailSystemId": system_id,
        "closures": [
            {
                **closure_feature(closure, stretch, language)["properties"],
                "crossing": crossing.geometry,
                "crossingMeters": crossing.length_meters,
            }
            for closure, stretch, crossing in check.closures
        ],
        "closedTrails": [
            {
                "trailId": trail.pk,
                "name": trail.name,
                "crossing": crossing.geometry,
                "crossingMeters": crossing.length_meters,
            }
            for trail, crossing in check.closed_trails
        ],
    }
