"""Accuracy of the coverage measure on synthetic tracks of known coverage (no database)."""

import pytest

from grooming.coverage import TrailLines, coverage
from tests.grooming.geo import at, gps_error, path

TOLERANCE = 15.0
LENGTH = 2000.0  # metres of the straight test trail, running east from the origin
TRAIL = TrailLines("t", [path([(0, 0), (LENGTH, 0)], step=100)])


def share(track, trails=(TRAIL,), tolerance=TOLERANCE, trail_id="t") -> float:
    found = coverage(track, list(trails), tolerance)
    return found[trail_id].share if trail_id in found else 0.0


def along(fraction: float, **kwargs) -> list[list[float]]:
    """A track from the trail's start along it, ending so that `fraction` of the trail lies
    within the tolerance (the track's buffer reaches TOLERANCE past its end)."""
    end = fraction * LENGTH - TOLERANCE
    return path([(-50, 0), (end, 0)], **kwargs)


@pytest.mark.parametrize("fraction", [0.09, 0.11, 0.5, 1.0])
def test_a_track_along_part_of_a_trail_covers_that_part(fraction):
    assert share([along(fraction)]) == pytest.approx(fraction, abs=0.003)


def test_a_track_beside_the_trail_beyond_the_tolerance_covers_none_of_it():
    assert share([path([(0, 40), (LENGTH, 40)])]) == 0.0
    assert coverage([path([(0, 40), (LENGTH, 40)])], [TRAIL], TOLERANCE) == {}


def test_a_track_crossing_at_right_angles_covers_only_the_crossing():
    crossing = path([(LENGTH / 2, -500), (LENGTH / 2, 500)])
    found = coverage([crossing], [TRAIL], TOLERANCE)["t"]
    assert found.metres == pytest.approx(2 * TOLERANCE, abs=0.5)
    assert found.share < 0.02


def test_gps_error_of_10_to_20_metres_still_covers_the_trail():
    noisy = path([(0, 0), (LENGTH, 0)], step=4, noise=gps_error(10, 20))
    assert share([noisy]) > 0.95


def test_a_steady_offset_within_the_tolerance_covers_the_trail_and_beyond_it_does_not():
    assert share([path([(0, 12), (LENGTH, 12)])]) == pytest.approx(1.0, abs=0.001)
    assert share([path([(0, 20), (LENGTH, 20)])]) == 0.0
    assert share([path([(0, 20), (LENGTH, 20)])], tolerance=25) == pytest.approx(1.0, abs=0.001)


@pytest.mark.parametrize("error", [None, gps_error(2, 5)], ids=["clean", "noisy"])
def test_parallel_trails_25_metres_apart_only_the_one_driven_is_covered(error):
    upper = TrailLines("upper", [path([(0, 25), (LENGTH, 25)], step=100)])
    track = path([(0, 0), (LENGTH, 0)], step=4, noise=error)
    found = coverage([track], [TRAIL, upper], TOLERANCE)
    assert found["t"].share > 0.99
    assert "upper" not in found or found["upper"].share < 0.01


def test_segments_are_not_joined_across_a_gap():
    """Two segments either side of the trail: the straight line between them would cross it."""
    before = path([(-300, -200), (-300, -100)])
    after = path([(300, 100), (300, 200)])
    trail = TrailLines("t", [path([(-1000, 0), (1000, 0)], step=100)])
    assert coverage([before, after], [trail], TOLERANCE) == {}


@pytest.mark.parametrize(
    "trail_end, offset",
    [((1000, 0), lambda d: (0, d)), ((0, 1000), lambda d: (d, 0))],
    ids=["east-west trail", "north-south trail"],
)
def test_metres_not_degrees_at_60_degrees_north(trail_end, offset):
    """At 60° a degree of longitude is half as long as a degree of latitude: a tolerance in
    degrees would reach twice as far east-west as north-south."""
    origin = (10.75, 60.0)
    trail = TrailLines("t", [path([(0, 0), trail_end], step=50, origin=origin)])

    def beside(distance: float) -> list[list[float]]:
        dx, dy = offset(distance)
        return path([(dx, dy), (trail_end[0] + dx, trail_end[1] + dy)], origin=origin)

    assert share([beside(12)], [trail]) == pytest.approx(1.0, abs=0.001)
    assert share([beside(20)], [trail]) == 0.0


def test_each_part_of_a_multi_line_trail_counts_by_its_length():
    first, second = path([(0, 0), (1000, 0)]), path([(0, 500), (3000, 500)])
    trail = TrailLines("m", [first, second])
    assert share([path([(-50, 0), (1050, 0)])], [trail], trail_id="m") == pytest.approx(
        0.25, abs=0.002
    )


def test_positions_with_elevation_are_measured_on_the_ground():
    lifted = [[lng, lat, 2000.0] for lng, lat in along(0.5)]
    assert share([lifted]) == pytest.approx(0.5, abs=0.003)


def test_no_trails_or_no_track():
    assert coverage([], [TRAIL], TOLERANCE) == {}
    assert coverage([[at(0, 0)]], [TRAIL], TOLERANCE) == {}
    assert coverage([along(1.0)], [], TOLERANCE) == {}
