"""Trail geometry: validation of GeoJSON lines and geodesic measurement on WGS84."""

import re
import sys

from core.limits import (
    ELEVATION_MAX,
    ELEVATION_MIN,
    GEOMETRY_PARTS_MAX,
    GEOMETRY_POSITIONS_MAX,
    LATITUDE_MAX,
    LONGITUDE_MAX,
)
from trails.geodesy import WGS84

MAX_FLOAT = sys.float_info.max

LINE_TYPES = ("LineString", "MultiLineString")


# Published coordinates (the map file, the legacy documents): at most 6 decimals, about 0.1 m,
# what a phone's GPS can tell apart; OpenStreetMap and GPX give 7 or more, a fifth of the bytes.
PUBLISHED_DECIMALS = 6
# The decimals of a number past the sixth, in JSON text, when it has no exponent.
_PAST_PUBLISHED_DECIMALS = re.compile(rb"(\d\.\d{6})\d+(?![\deE])")


def published_degrees(value: float) -> float:
    """One coordinate (a point, a system's location), rounded."""
    return round(value, PUBLISHED_DECIMALS)


def published_json(encoded: bytes) -> bytes:
    """Encoded coordinates, or a geometry (its type and numbers only), with the decimals past
    the sixth cut: on the JSON text, as fast as copying it, where rounding every position of
    a large system in Python would double its compile; a cut moves a position by 0.1 m at
    most."""
    return _PAST_PUBLISHED_DECIMALS.sub(rb"\1", encoded)


class GeometryError(ValueError):
    """The geometry is not a usable LineString or MultiLineString."""


def _position(value, where: str) -> list[float]:
    if not isinstance(value, list | tuple) or not 2 <= len(value) <= 3:
        raise GeometryError(f"{where} must be [lng, lat] or [lng, lat, elevation].")
    if not all(isinstance(n, int | float) and not isinstance(n, bool) for n in value):
        raise GeometryError(f"{where} must hold numbers.")
    # Compared, not converted: float() of a huge integer raises; NaN compares false.
    if not all(-MAX_FLOAT <= n <= MAX_FLOAT for n in value):
        raise GeometryError(f"{where} must hold finite numbers.")
    lng, lat = value[0], value[1]
    if not -LONGITUDE_MAX <= lng <= LONGITUDE_MAX or not -LATITUDE_MAX <= lat <= LATITUDE_MAX:
        raise GeometryError(f"{where} is out of range (lng -180..180, lat -90..90).")
    if len(value) == 3 and not ELEVATION_MIN <= value[2] <= ELEVATION_MAX:
        raise GeometryError(
            f"{where}: the elevation must be from {ELEVATION_MIN} to {ELEVATION_MAX} metres."
        )
    return [float(n) for n in value]


def _line(value, where: str) -> list[list[float]]:
    if not isinstance(value, list):
        raise GeometryError(f"{where} must be a list of positions.")
    positions = [_position(p, f"{where}[{i}]") for i, p in enumerate(value)]
    if len({(p[0], p[1]) for p in positions}) < 2:
        raise GeometryError(f"{where} needs at least two distinct positions.")
    return positions


def _check_counts(kind: str, coordinates) -> None:
    """Refuse a geometry beyond the count limits before looking at any position."""
    if not isinstance(coordinates, list):
        return
    parts = coordinates if kind == "MultiLineString" else [coordinates]
    if len(parts) > GEOMETRY_PARTS_MAX:
        raise GeometryError(f"at most {GEOMETRY_PARTS_MAX} lines in a MultiLineString.")
    positions = sum(len(part) if isinstance(part, list) else 1 for part in parts)
    if positions > GEOMETRY_POSITIONS_MAX:
        raise GeometryError(f"at most {GEOMETRY_POSITIONS_MAX} positions in a trail.")


def validate(geometry) -> dict:
    """A clean copy of a LineString or MultiLineString geometry, or GeometryError."""
    if not isinstance(geometry, dict):
        raise GeometryError("geometry must be a GeoJSON LineString or MultiLineString object.")
    kind = geometry.get("type")
    coordinates = geometry.get("coordinates")
    _check_counts(kind, coordinates)
    if kind == "LineString":
        return {"type": kind, "coordinates": _line(coordinates, "coordinates")}
    if kind == "MultiLineString":
        if not isinstance(coordinates, list) or not coordinates:
            raise GeometryError("coordinates of a MultiLineString must be a non-empty list.")
        lines = [_line(line, f"coordinates[{i}]") for i, line in enumerate(coordinates)]
        return {"type": kind, "coordinates": lines}
    raise GeometryError(f"geometry type must be one of {', '.join(LINE_TYPES)}, not {kind!r}.")


def lines(geometry: dict) -> list[list[list[float]]]:
    """The geometry's parts: one line for a LineString, each line of a MultiLineString."""
    if geometry["type"] == "LineString":
        return [geometry["coordinates"]]
    return geometry["coordinates"]


def length_km(geometry: dict) -> float:
    """Geodesic length on the WGS84 ellipsoid, in kilometres."""
    total = 0.0
    for line in lines(geometry):
        total += WGS84.line_length([p[0] for p in line], [p[1] for p in line])
    return total / 1000


def first_vertex(geometry: dict) -> tuple[float, float]:
    """(lat, lng) of the first position."""
    first = lines(geometry)[0][0]
    return first[1], first[0]


def extent(geometry: dict) -> tuple[float, float, float, float]:
    """(west, south, east, north) of every position (no wrap across the antimeridian)."""
    positions = [p for line in lines(geometry) for p in line]
    lngs = [p[0] for p in positions]
    lats = [p[1] for p in positions]
    return min(lngs), min(lats), max(lngs), max(lats)


def feature_collection(geometry: dict, properties: dict | None = None) -> dict:
    """The parsed FeatureCollection the interface shows as a trail's geoJson."""
    return {
        "type": "FeatureCollection",
        "features": [{"type": "Feature", "properties": properties or {}, "geometry": geometry}],
    }
