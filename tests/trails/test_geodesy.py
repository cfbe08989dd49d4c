"""The geometry toolkit against pyproj's own geodesics, on the equator, at 45° and at 70°."""

import pytest
import shapely
from pyproj import Geod

from trails.geodesy import Box, LocalProjection, around, metres_between, metres_to_box_at_least

ELLIPSOID = Geod(ellps="WGS84")
LATITUDES = [0.0, 45.0, 70.0]
LNG = 10.0


def step(lat: float, azimuth: float, metres: float) -> tuple[float, float]:
    """(lat, lng) `metres` from (lat, LNG) towards `azimuth`, by pyproj."""
    lng, to_lat, _ = ELLIPSOID.fwd(LNG, lat, azimuth, metres)
    return to_lat, lng


@pytest.mark.parametrize("lat", LATITUDES)
def test_distances_in_the_local_projection_are_geodesic(lat):
    a, b = step(lat, 30, 2_000), step(lat, 250, 3_500)
    geodesic = ELLIPSOID.inv(a[1], a[0], b[1], b[0])[2]
    projection = LocalProjection(LNG, lat)
    projected = projection.point(a[1], a[0]).distance(projection.point(b[1], b[0]))
    assert projected == pytest.approx(geodesic, abs=0.05)
    assert metres_between(a, b) == pytest.approx(geodesic, abs=0.001)
    line = shapely.LineString([projection.point(a[1], a[0]), projection.point(b[1], b[0])])
    assert projection.positions(line) == [
        [pytest.approx(a[1], abs=1e-9), pytest.approx(a[0], abs=1e-9)],
        [pytest.approx(b[1], abs=1e-9), pytest.approx(b[0], abs=1e-9)],
    ]


@pytest.mark.parametrize("lat", LATITUDES)
def test_a_box_around_a_place_holds_every_place_that_near_and_little_more(lat):
    box = around(lat, LNG, 1_000)
    for azimuth in range(0, 360, 15):
        to_lat, to_lng = step(lat, azimuth, 1_000)
        assert box.south <= to_lat <= box.north
        assert box.west <= to_lng <= box.east
    north_edge = ELLIPSOID.inv(LNG, lat, LNG, box.north)[2]
    east_edge = ELLIPSOID.inv(LNG, lat, box.east, lat)[2]
    assert 1_000 <= north_edge < 1_020
    assert 1_000 <= east_edge < 1_020


@pytest.mark.parametrize("lat", LATITUDES)
def test_the_distance_to_a_box_is_never_overstated(lat):
    box = Box(LNG - 0.01, lat - 0.01, LNG + 0.01, lat + 0.01)
    for azimuth in range(0, 360, 30):
        to_lat, to_lng = step(lat, azimuth, 5_000)
        nearest = (min(max(to_lat, box.south), box.north), min(max(to_lng, box.west), box.east))
        truth = metres_between((to_lat, to_lng), nearest)
        bound = metres_to_box_at_least(to_lat, to_lng, box)
        assert 0.98 * truth <= bound <= truth


def test_near_a_pole_a_box_takes_every_longitude():
    box = around(89.999, LNG, 1_000)
    assert (box.west, box.east) == (-180.0, 180.0)
    assert box.north == 90.0
