"""import_osm on every OpenStreetMap file of the shared data folder, as a new user runs it."""

import json

import pytest
from django.core.management.base import CommandError

from publishing.models import CompileRequest
from tests.moving.support import SHARED_DATA, run
from trails.models import Trail, TrailSystem

pytestmark = pytest.mark.django_db

SINGLE_AREAS = {
    "killington_vt_osm.geojson": 193,
    "schweitzer_id_osm.geojson": 169,
    "lost_trail_powder_mtn_osm.geojson": 109,
    "blue_hills_ski_area_ma_osm.geojson": 15,
}


def import_osm(file_name: str, *more: str):
    return run("import_osm", str(SHARED_DATA / file_name), "--name", "Imported", "--owner",
               "uid-owner", *more)  # fmt: skip


@pytest.mark.parametrize(("file_name", "trails"), SINGLE_AREAS.items())
def test_each_single_area_file_imports_with_lifts_activities_and_open_statuses(
    file_name, trails, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        output = import_osm(file_name)

    system = TrailSystem.objects.get(pk=output.created_id)
    assert system.trails.count() == trails
    assert "OpenStreetMap features kept:" in output.stderr
    assert f"Importing {trails} trails and 0 points." in output.stderr
    lifts = system.trails.filter(type="Lift")
    assert lifts.exists()
    assert all(lift.categories == ["Lifts"] and lift.one_way for lift in lifts)
    runs = system.trails.exclude(type="Lift")
    with_activities = runs.filter(activities__isnull=False).distinct().count()
    assert with_activities >= 0.9 * runs.count()  # OSM's free-form piste:type leaves a few out
    assert set(runs.values_list("status", flat=True)) == {"Open"}
    assert "OpenStreetMap contributors" in system.description
    first_statuses = system.status_changes.filter(
        via="import", field="status", old_value__isnull=True
    )
    assert first_statuses.count() == trails  # the history starts at the import
    # The compile ran: the system publishes open trails, not a closed map.
    system.refresh_from_db()
    assert system.open_trails == system.total_trails > 0


def test_the_report_counts_what_was_skipped_by_reason():
    output = import_osm("lost_trail_powder_mtn_osm.geojson")
    assert "skipped 30: way of a piste/ski route (imported as the route)" in output.stderr
    assert "skipped 9: unnamed path or track" in output.stderr
    assert "10 piste routes" in output.stderr
    assert output.stdout.strip().splitlines() == [json.dumps({"id": output.created_id})]


def test_the_midwest_network_imports_whole_with_a_progress_bar():
    output = import_osm("osm_ski_network_midwest_southeast.geojson")
    assert TrailSystem.objects.get(pk=output.created_id).trails.count() == 1212
    assert "skipped 16: area (polygon), not a line" in output.stderr
    assert "Checking:" in output.stderr  # tqdm's bar on a file of more than 500 features


@pytest.mark.parametrize(
    ("file_name", "area", "trails"),
    [
        ("osm_ski_network_northeast.geojson", "killington", 183),
        ("osm_ski_network_west.geojson", "Revelstoke", 87),
    ],
)
def test_ski_area_picks_one_area_of_a_large_network(file_name, area, trails):
    output = import_osm(file_name, "--ski-area", area)
    system = TrailSystem.objects.get(pk=output.created_id)
    assert system.trails.count() == trails
    assert "in another ski area" in output.stderr


def test_a_large_network_checks_whole_in_a_dry_run_and_writes_nothing():
    output = import_osm("osm_ski_network_west.geojson", "--dry-run")
    assert "Would import 5525 trails and 0 points." in output.stderr
    assert output.stderr.rstrip().endswith("Dry run: nothing was written.")
    assert output.stdout == ""
    assert not TrailSystem.objects.exists()
    assert not CompileRequest.objects.exists()


def test_an_unknown_ski_area_is_refused_with_the_closest_names():
    with pytest.raises(CommandError, match=r"No ski area 'kilington'.*Did you mean: Killington"):
        import_osm("osm_ski_network_northeast.geojson", "--ski-area", "kilington")
    assert not TrailSystem.objects.exists()


def test_importing_the_same_area_twice_gives_two_systems_with_their_own_ids():
    first = import_osm("blue_hills_ski_area_ma_osm.geojson").created_id
    second = import_osm("blue_hills_ski_area_ma_osm.geojson").created_id
    assert first != second
    assert Trail.objects.count() == 2 * 15


def test_a_file_that_is_not_geojson_is_refused(tmp_path):
    path = tmp_path / "export.osm"
    path.write_text("<osm version='0.6'/>")
    with pytest.raises(CommandError, match="is not valid JSON"):
        run("import_osm", str(path), "--name", "X", "--owner", "o")


def test_create_trail_system_points_an_openstreetmap_export_to_import_osm():
    path = str(SHARED_DATA / "killington_vt_osm.geojson")
    with pytest.raises(CommandError, match=r"is an OpenStreetMap export.*import_osm"):
        run("create_trail_system", "--name", "X", "--owner", "o", "--from-geojson", path)
    assert not TrailSystem.objects.exists()
