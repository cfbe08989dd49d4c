"""Measuring on the ground, the one way every app does it: geodesic distances on WGS84, boxes
grown by a distance, and a local projection to metres where shapely measures.

A degree of latitude is 110,574 m at the equator and 111,694 m at the poles; a degree of
longitude is that of latitude times (about) the cosine of the latitude, never less. Margins and
bounds are taken with the least of them, so a box grown by a distance never falls short of it
and a distance bounded from below is never overstated."""

import functools
import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import shapely
from pyproj import CRS, Geod, Transformer

WGS84 = Geod(ellps="WGS84")

# Metres in a degree of latitude, at least (rounded down from the equator's 110,574).
METRES_PER_DEGREE = 110_000.0
# Below this cosine of the latitude (within about 60 km of a pole) a box grown by a distance
# takes every longitude: a degree of longitude there is no distance.
MIN_COSINE = 0.01
# A local projection's centre is rounded to this (about 1 km) when it is taken around lines:
# 500 m off the middle changes its distances by far less than a millimetre in a kilometre.
CENTRE_DEGREES = 0.01

Line = Sequence[Sequence[float]]  # [[lng, lat(, elevation)], ...]


class Box(NamedTuple):
    """West, south, east, north in degrees (no wrap across the antimeridian)."""

    west: float
    south: float
    east: float
    north: float


def metres_between(a: tuple[float, float], b: tuple[float, float]) -> float:
    """Geodesic distance between two (lat, lng) positions."""
    return WGS84.inv(a[1], a[0], b[1], b[0])[2]


def longitude_scale(lat: float) -> float:
    """The length of a degree of longitude at this latitude, in degrees of latitude (the
    cosine: what flattens longitude and latitude to a map where metres are alike both ways)."""
    return math.cos(math.radians(lat))


def grown(box: Box, metres: float) -> Box:
    """The box grown by at least `metres` on every side; near a pole, every longitude."""
    lat_margin = metres / METRES_PER_DEGREE
    south, north = max(box.south - lat_margin, -90.0), min(box.north + lat_margin, 90.0)
    cosine = longitude_scale(min(max(abs(box.south), abs(box.north)) + lat_margin, 90.0))
    if cosine < MIN_COSINE:
        return Box(-180.0, south, 180.0, north)
    lng_margin = lat_margin / cosine
    return Box(box.west - lng_margin, south, box.east + lng_margin, north)


def around(lat: float, lng: float, metres: float) -> Box:
    """The box holding every place within `metres` of (lat, lng)."""
    return grown(Box(lng, lat, lng, lat), metres)


def metres_to_box_at_least(lat: float, lng: float, box: Box) -> float:
    """A lower bound of the distance from (lat, lng) to anything in the box, in metres
    (degrees of longitude measured at the box's latitude nearest the equator, so never more
    than the truth)."""
    d_lat = max(box.south - lat, 0.0, lat - box.north)
    d_lng = max(box.west - lng, 0.0, lng - box.east)
    widest = 0.0 if box.south <= 0 <= box.north else min(abs(box.south), abs(box.north))
    scale = longitude_scale(min(max(widest, abs(lat)), 90.0))
    return METRES_PER_DEGREE * math.hypot(d_lat, d_lng * scale)


def _lng_lat(lines: Sequence[Line]) -> np.ndarray:
    """Every position's [lng, lat], elevations dropped, as one (n, 2) array."""
    arrays = []
    for line in lines:
        try:
            arrays.append(np.asarray(line, dtype=float)[:, :2])
        except ValueError:  # a line mixing [lng, lat] and [lng, lat, elevation]
            arrays.append(np.array([p[:2] for p in line], dtype=float))
    return np.concatenate(arrays)


def group_indices(groups: Sequence) -> np.ndarray:
    """For each item of the groups in turn, the index of its group (shapely's `indices`)."""
    return np.repeat(np.arange(len(groups)), [len(group) for group in groups])


def _rounded(degrees: float) -> float:
    return round(float(degrees) / CENTRE_DEGREES) * CENTRE_DEGREES


@functools.lru_cache(maxsize=64)
def _aeqd(lng: float, lat: float) -> tuple[Transformer, Transformer]:
    """Making a transformer costs more than measuring a short track: one pair per centre."""
    crs = CRS.from_proj4(f"+proj=aeqd +lat_0={lat} +lon_0={lng} +datum=WGS84 +units=m")
    return (
        Transformer.from_crs("EPSG:4326", crs, always_xy=True),
        Transformer.from_crs(crs, "EPSG:4326", always_xy=True),
    )


class LocalProjection:
    """WGS84 longitude/latitude to metres in an azimuthal equidistant projection centred on a
    place: distances from the centre are geodesic, and within 50 km of it the scale is off by
    less than 0.002 %, so metres mean the same on the equator and at 60° north."""

    def __init__(self, lng: float, lat: float):
        self._forward, self._backward = _aeqd(lng, lat)

    @classmethod
    def around(cls, lines: Sequence[Line]) -> "LocalProjection":
        """Centred on the middle of the lines' bounding box, to CENTRE_DEGREES (so that
        measurements of one place share a projection)."""
        points = _lng_lat(lines)
        lng, lat = (points.min(axis=0) + points.max(axis=0)) / 2
        return cls(_rounded(lng), _rounded(lat))

    def linestrings(self, lines: Sequence[Line]) -> np.ndarray:
        """Projected shapely LineStrings, one per line, in one transform call."""
        coords = _lng_lat(lines)
        x, y = self._forward.transform(coords[:, 0], coords[:, 1])
        return shapely.linestrings(np.column_stack([x, y]), indices=group_indices(lines))

    def point(self, lng: float, lat: float) -> shapely.Point:
        return shapely.Point(self._forward.transform(lng, lat))

    def in_degrees(self, geometries: np.ndarray) -> np.ndarray:
        """Projected geometries back in longitude and latitude, in one transform call."""
        return shapely.transform(
            geometries, lambda xy: np.column_stack(self._backward.transform(xy[:, 0], xy[:, 1]))
        )

    def positions(self, geometry: shapely.Geometry) -> list[list[float]]:
        """A projected geometry's coordinates back in [lng, lat]."""
        coords = shapely.get_coordinates(geometry)
        lng, lat = self._backward.transform(coords[:, 0], coords[:, 1])
        return [[float(x), float(y)] for x, y in zip(lng, lat, strict=True)]
