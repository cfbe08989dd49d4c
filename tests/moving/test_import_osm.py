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


def test_a_network_of_many_areas_without_ski_area_is_refused_with_the_areas_and_ways_on():
    with pytest.raises(CommandError) as refusal:
        import_osm("osm_ski_network_west.geojson")
    message = str(refusal.value)
    assert message.startswith("This file covers 76 ski areas")
    assert "Nothing was imported" in message
    assert "--ski-area NAME" in message
    assert "--each-area" in message
    listed = [line.split() for line in message.splitlines() if line.endswith(("trail", "trails"))]
    assert len(listed) == 76
    assert ["Revelstoke", "87", "trails"] in listed
    assert ["Magic", "Mountain", "1", "trail"] in listed
    assert sum(int(words[-2]) for words in listed) == 5525
    assert not TrailSystem.objects.exists()


def test_each_area_creates_one_system_per_area_named_after_it(tmp_path):
    network = json.loads((SHARED_DATA / "osm_ski_network_west.geojson").read_text())
    areas = {"Revelstoke": 87, "Magic Mountain": 1, "Rotarun": 1}
    network["features"] = [f for f in network["features"] if f["properties"]["ski_area"] in areas]
    network["ski_areas"] = sorted(areas)
    path = tmp_path / "three_areas.geojson"
    path.write_text(json.dumps(network))

    output = run("import_osm", str(path), "--each-area", "--owner", "uid-owner",
                 "--member", "uid-crew=Trustee")  # fmt: skip

    created = [json.loads(line) for line in output.stdout.splitlines()]
    assert [line["name"] for line in created] == sorted(areas)
    for line in created:
        system = TrailSystem.objects.get(pk=line["id"])
        assert system.name == line["name"]
        assert system.owner_id == "uid-owner"
        assert system.trails.count() == areas[system.name]
        assert list(system.memberships.values_list("user_id", "role")) == [("uid-crew", "Trustee")]
        assert "OpenStreetMap contributors" in system.description
    assert output.stderr.rstrip().splitlines()[-1] == (
        "Created 3 trail systems, one per ski area, owned by uid-owner: 89 trails."
    )


def test_each_area_checks_the_whole_network_in_a_dry_run():
    output = run("import_osm", str(SHARED_DATA / "osm_ski_network_west.geojson"), "--each-area",
                 "--owner", "uid-owner", "--dry-run")  # fmt: skip
    assert "Would create 76 trail systems, one per ski area: 5,525 trails." in output.stderr
    assert "skipped 81: area (polygon), not a line" in output.stderr
    assert output.stderr.rstrip().endswith("Dry run: nothing was written.")
    assert output.stdout == ""
    assert not TrailSystem.objects.exists()


@pytest.mark.parametrize(
    ("more", "says"),
    [
        (["--each-area", "--name", "West"], "leave out --name"),
        (["--each-area", "--ski-area", "Alta", "--name", "Alta"], "not allowed with argument"),
    ],
)
def test_each_area_takes_no_name_and_no_ski_area(more, says):
    path = str(SHARED_DATA / "osm_ski_network_west.geojson")
    with pytest.raises(CommandError, match=says):
        run("import_osm", path, "--owner", "uid-owner", *more)
    assert not TrailSystem.objects.exists()


def test_a_name_is_required_without_each_area():
    with pytest.raises(CommandError, match="--name is required"):
        run("import_osm", str(SHARED_DATA / "killington_vt_osm.geojson"), "--owner", "o")


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


def test_a_large_area_checks_whole_in_a_dry_run_and_writes_nothing():
    output = import_osm("osm_ski_network_west.geojson", "--ski-area", "winter park", "--dry-run")
    assert "Would import 194 trails and 0 points." in output.stderr
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
