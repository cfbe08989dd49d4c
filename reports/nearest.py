"""The trail nearest to a rider's position, by geodesic distance on WGS84.

Each trail's box (kept with its geometry) gives a lower bound of its distance, so only the
trails whose box is nearer than the best trail found so far have their geometry read. The
distance to a trail is measured in an azimuthal equidistant projection centred on the
rider, where the distance from the centre is the geodesic distance."""

import math
from dataclasses import dataclass

import shapely
from pyproj import CRS, Transformer

from trails.geometry import WGS84, lines
from trails.models import Trail, TrailSystem

METRES_PER_DEGREE = 111_320  # of latitude; of longitude times cos(latitude)
READ_BATCH = 20  # geometries read per query while looking


@dataclass(frozen=True)
class Nearest:
    trail_id: str
    name: str
    km: float


def _box_metres(lat: float, lng: float, box: tuple[float, float, float, float]) -> float:
    """A lower bound of the distance from (lat, lng) to anything in the box, in metres
    (degrees of longitude measured at the box's latitude nearest the equator, so never
    more than the truth)."""
    west, south, east, north = box
    d_lat = max(south - lat, 0.0, lat - north)
    d_lng = max(west - lng, 0.0, lng - east)
    widest = 0.0 if south <= 0 <= north else min(abs(south), abs(north))
    scale = math.cos(math.radians(min(max(widest, abs(lat)), 90.0)))
    return 0.99 * METRES_PER_DEGREE * math.hypot(d_lat, d_lng * scale)


def _metres_to(lat: float, lng: float, geometry: dict) -> float:
    around = CRS.from_proj4(f"+proj=aeqd +lat_0={lat} +lon_0={lng} +datum=WGS84 +units=m")
    to_metres = Transformer.from_crs("EPSG:4326", around, always_xy=True)
    parts = []
    for line in lines(geometry):
        x, y = to_metres.transform([p[0] for p in line], [p[1] for p in line])
        parts.append(shapely.LineString(list(zip(x, y, strict=True))))
    return shapely.MultiLineString(parts).distance(shapely.Point(0, 0))


def nearest_trail(system: TrailSystem, lat: float, lng: float) -> Nearest | None:
    """The system's live trail nearest to the position; None for a system without trails."""
    boxes = sorted(
        (_box_metres(lat, lng, (w, s, e, n)), pk)
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


def metres_between(a: tuple[float, float], b: tuple[float, float]) -> float:
    """Geodesic distance between two (lat, lng) positions."""
    return WGS84.inv(a[1], a[0], b[1], b[0])[2]
