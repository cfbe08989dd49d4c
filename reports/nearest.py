"""The trail nearest to a rider's position, by geodesic distance on WGS84.

Each trail's box (kept with its geometry) gives a lower bound of its distance, so only the
trails whose box is nearer than the best trail found so far have their geometry read. The
distance to a trail is measured in an azimuthal equidistant projection centred on the
rider, where the distance from the centre is the geodesic distance."""

from dataclasses import dataclass

import shapely

from trails.geodesy import Box, LocalProjection, metres_to_box_at_least
from trails.geometry import lines
from trails.models import Trail, TrailSystem

READ_BATCH = 20  # geometries read per query while looking


@dataclass(frozen=True)
class Nearest:
    trail_id: str
    name: str
    km: float


def _metres_to(lat: float, lng: float, geometry: dict) -> float:
    parts = LocalProjection(lng, lat).linestrings(lines(geometry))
    return shapely.MultiLineString(list(parts)).distance(shapely.Point(0, 0))


def nearest_trail(system: TrailSystem, lat: float, lng: float) -> Nearest | None:
    """The system's live trail nearest to the position; None for a system without trails."""
    boxes = sorted(
        (metres_to_box_at_least(lat, lng, Box(w, s, e, n)), pk)
        for pk, w, s, e, n in Trail.objects.filter(
            trail_system=system, west__isnull=False
        ).values_list("id", "west", "south", "east", "north")
    )
    best: Nearest | None = None
    for start in range(0, len(boxes), READ_BATCH):
        batch = [pk for bound, pk in boxes[start : start + READ_BATCH]]
        if best is not None and boxes[start][0] >= best.km * 1000:
            break
        for trail in Trail.objects.filter(pk__in=batch).only("id", "name", "geometry"):
            metres = _metres_to(lat, lng, trail.geometry)
            if best is None or metres < best.km * 1000:
                best = Nearest(trail.pk, trail.name, metres / 1000)
    return best
