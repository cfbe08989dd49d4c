"""import_gpx with the two real GPX files of the shared data folder."""

import pytest
from django.core.management.base import CommandError

from tests.factories import TrailSystemFactory
from tests.moving.support import SHARED_DATA, run
from trails.geometry import length_km
from trails.models import Trail

pytestmark = pytest.mark.django_db

BLUE_HILLS = str(SHARED_DATA / "blue_hills_reservation_mtb_2001.gpx")
LOS_GATOS = str(SHARED_DATA / "los_gatos_trail_run_2017_garmin.gpx")


@pytest.fixture
def system():
    return TrailSystemFactory()


def test_a_single_track_becomes_a_linestring_trail(system):
    output = run("import_gpx", system.pk, LOS_GATOS, "--name", "Los Gatos loop",
                 "--status", "Open", "--difficulty", "square")  # fmt: skip
    trail = Trail.objects.get(pk=output.created_id)
    assert (trail.trail_system, trail.name, trail.status, trail.difficulty) == (
        system, "Los Gatos loop", "Open", "square",
    )  # fmt: skip
    assert trail.geometry["type"] == "LineString"
    assert len(trail.geometry["coordinates"]) == 988
    assert 12 < trail.distance < 13.5  # SOURCES.md: 12.8 km
    assert "Importing casual stroll as 'Los Gatos loop': 1 segments." in output.stderr


def test_several_segments_become_a_multilinestring(system):
    output = run("import_gpx", system.pk, BLUE_HILLS, "--name", "Buck Hill", "--track", "BUCK HILL")
    trail = Trail.objects.get(pk=output.created_id)
    assert trail.geometry["type"] == "MultiLineString"
    assert len(trail.geometry["coordinates"]) == 2
    assert trail.distance == pytest.approx(length_km(trail.geometry))
    assert trail.status == "None"  # like a trail created through the API


def test_a_file_with_several_tracks_needs_track_and_lists_them(system):
    with pytest.raises(CommandError, match="1: BIG LOOP, 2: BUCK HILL, 3: SHORT LOOP"):
        run("import_gpx", system.pk, BLUE_HILLS, "--name", "Loop")
    assert not Trail.objects.exists()


def test_a_bad_segment_is_reported_and_skip_invalid_imports_the_rest(system):
    with pytest.raises(CommandError) as failure:
        run("import_gpx", system.pk, BLUE_HILLS, "--name", "Big loop", "--track", "1")
    assert str(failure.value).splitlines()[1:] == [
        "segment 5 (BIG LOOP): coordinates needs at least two distinct positions."
    ]
    assert not Trail.objects.exists()

    dry = run("import_gpx", system.pk, BLUE_HILLS, "--name", "Big loop", "--track", "1",
              "--skip-invalid", "--dry-run")  # fmt: skip
    assert "Would import BIG LOOP as 'Big loop': 8 segments." in dry.stderr
    assert not Trail.objects.exists()

    output = run("import_gpx", system.pk, BLUE_HILLS, "--name", "Big loop", "--track", "1",
                 "--skip-invalid")  # fmt: skip
    assert len(Trail.objects.get(pk=output.created_id).geometry["coordinates"]) == 8
    assert "skipped segment 5 (BIG LOOP)" in output.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nope", LOS_GATOS, "--name", "X"], "No trail system with id nope"),
        (["{system}", "/missing.gpx", "--name", "X"], "Cannot read /missing.gpx"),
        (["{system}", __file__, "--name", "X"], "is not a GPX file"),
        (["{system}", LOS_GATOS, "--name", " "], "name must be 1 to 200"),
        (["{system}", BLUE_HILLS, "--name", "X", "--track", "Pinch Flat"], "No track or route"),
    ],
)
def test_bad_input_is_refused_with_a_clear_error(system, args, message):
    args = [a.format(system=system.pk) for a in args]
    with pytest.raises(CommandError, match=message):
        run("import_gpx", *args)
    assert not Trail.objects.exists()
