"""Every importer reports every problem of every feature at once, writes nothing when one is
bad, and has --dry-run and --skip-invalid (shown here on create_trail_system --from-geojson)."""

import json

import pytest
from django.core.management.base import CommandError

from publishing.models import CompileRequest
from tests.moving.support import run
from trails.activities import CATALOG
from trails.models import Point, Trail, TrailSystem

pytestmark = pytest.mark.django_db

LINE = [[-113.95, 45.69], [-113.949, 45.691]]


def feature(geometry_type, coordinates, **properties):
    return {
        "type": "Feature",
        "geometry": {"type": geometry_type, "coordinates": coordinates},
        "properties": properties,
    }


def mixed_file(tmp_path) -> str:
    collection = {
        "type": "FeatureCollection",
        "features": [
            feature("LineString", LINE, name="Good trail", status="Open"),
            feature("LineString", [[-113.9, 45.7]], name="Bad trail", status="Groomed",
                    difficulty="black", activities=[{"value": "curling", "status": "None"}]),
            feature("Point", [-113.9, 45.7], name="Good point", markerClass="parking"),
            feature("Point", [-113.9, 95], markerClass="igloo"),
        ],
    }  # fmt: skip
    path = tmp_path / "mixed.geojson"
    path.write_text(json.dumps(collection))
    return str(path)


def create(path, *more):
    return run("create_trail_system", "--name", "X", "--owner", "o", "--from-geojson", path, *more)


def test_every_problem_of_every_feature_is_listed_with_index_name_and_field(tmp_path):
    with pytest.raises(CommandError) as failure:
        create(mixed_file(tmp_path))
    lines = str(failure.value).splitlines()
    assert lines[0] == "Nothing was imported: 8 problems (--skip-invalid imports the rest)."
    assert lines[1:6] == [
        "feature 1 (Bad trail): geometry coordinates needs at least two distinct positions.",
        "feature 1 (Bad trail): difficulty 'black' is not one of circle, square, diamond, "
        "doubleDiamond, terrainPark, notRated.",
        "feature 1 (Bad trail): status 'Groomed' is not one of Open, Caution, Closed, None.",
        "feature 1 (Bad trail): activities[0].value unknown activity 'curling'; known "
        "activities: " + ", ".join(sorted(CATALOG)) + ".",
        "feature 1 (Bad trail): activities[0].status 'None' is not one of Open, Caution, Closed.",
    ]
    assert lines[6:8] == [
        "feature 3: geometry Point coordinates are out of range (lng -180..180, lat -90..90).",
        "feature 3: name is required.",
    ]
    assert lines[8].startswith("feature 3: markerClass 'igloo' is not one of bar, cabin,")
    assert not TrailSystem.objects.exists()
    assert not CompileRequest.objects.exists()


def test_skip_invalid_imports_the_good_features_and_lists_the_others(tmp_path):
    output = create(mixed_file(tmp_path), "--skip-invalid")
    system = TrailSystem.objects.get(pk=output.created_id)
    assert list(system.trails.values_list("name", flat=True)) == ["Good trail"]
    assert list(system.points.values_list("name", flat=True)) == ["Good point"]
    assert "Importing 1 trails and 1 points; skipped 2 invalid features:" in output.stderr
    assert "  feature 1 (Bad trail): status 'Groomed'" in output.stderr
    assert "  feature 3: markerClass 'igloo'" in output.stderr


def test_dry_run_reports_and_writes_nothing(tmp_path):
    output = create(mixed_file(tmp_path), "--skip-invalid", "--dry-run")
    assert "Would import 1 trails and 1 points; skipped 2 invalid features:" in output.stderr
    assert output.stderr.rstrip().endswith("Dry run: nothing was written.")
    assert output.stdout == ""
    assert not TrailSystem.objects.exists()
    assert not Trail.all_objects.exists()
    assert not Point.all_objects.exists()
    assert not CompileRequest.objects.exists()


def test_dry_run_of_a_bad_file_fails_like_the_real_run(tmp_path):
    with pytest.raises(CommandError, match="Nothing was imported: 8 problems"):
        create(mixed_file(tmp_path), "--dry-run")
