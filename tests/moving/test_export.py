"""export_trail_system writes the import format: importing an export recreates the system,
and --new-ids makes a copy next to the original."""

import json

import pytest
from django.core.management.base import CommandError

from moving.exporting import export_collection
from tests.factories import PointFactory, TrailFactory, TrailSystemFactory
from tests.moving.support import run
from trails.models import Trail, TrailActivity, TrailSystem

pytestmark = pytest.mark.django_db

TWO_PARTS = {
    "type": "MultiLineString",
    "coordinates": [[[-113.95, 45.69], [-113.949, 45.691]], [[-113.94, 45.7], [-113.93, 45.71]]],
}


@pytest.fixture
def original():
    system = TrailSystemFactory(name="Pine Hill")
    timber = TrailFactory(trail_system=system, name="Timber", status="None", order=2,
                          difficulty="square", line_style="Dashed", one_way=True, hidden=True,
                          categories=["Nordic"], description="Loop.")  # fmt: skip
    timber.apply_geometry(TWO_PARTS)
    timber.save()
    TrailActivity.objects.create(trail=timber, value="nordic-skate", status="Caution",
                                 difficulty="diamond", position=0)  # fmt: skip
    TrailActivity.objects.create(trail=timber, value="nordic-classic", status="Closed", position=1)
    TrailFactory(trail_system=system, name="Chair", type="Lift", status="Open", order=1)
    PointFactory(
        trail_system=system,
        name="Cam",
        marker_class="web-cam",
        description="Summit.",
        web_cam_url="https://cams.example.test/1.jpg",
        dining_options={"bar": True},
    )
    PointFactory(trail_system=system, name="Hut", marker_class="wait-time", wait_time=5)
    return system


def without_ids(collection: dict) -> list[dict]:
    return [
        {
            **f,
            "properties": {
                k: v for k, v in f["properties"].items() if k not in ("trailId", "pointId")
            },
        }
        for f in collection["features"]
    ]


def test_an_export_imported_elsewhere_recreates_the_system(original, tmp_path):
    path = tmp_path / "export.geojson"
    run("export_trail_system", original.pk, "--output", str(path))
    exported = json.loads(path.read_text())
    ids = [
        f["properties"].get("trailId") or f["properties"]["pointId"] for f in exported["features"]
    ]
    Trail.all_objects.all().delete()
    original.points.all().delete()
    original.delete()

    output = run(
        "create_trail_system", "--name", "Pine Hill", "--owner", "o", "--from-geojson", str(path)
    )

    copy = TrailSystem.objects.get(pk=output.created_id)
    assert export_collection(copy)["features"] == exported["features"]
    assert [
        f["properties"].get("trailId") or f["properties"]["pointId"] for f in exported["features"]
    ] == ids


def test_new_ids_makes_a_copy_next_to_the_original(original, tmp_path):
    path = tmp_path / "export.geojson"
    path.write_text(run("export_trail_system", original.pk).stdout)

    with pytest.raises(CommandError, match="already exist here"):
        run("create_trail_system", "--name", "Copy", "--owner", "o", "--from-geojson", str(path))
    output = run("create_trail_system", "--name", "Copy", "--owner", "o", "--from-geojson",
                 str(path), "--new-ids")  # fmt: skip

    copy = TrailSystem.objects.get(pk=output.created_id)
    assert without_ids(export_collection(copy)) == without_ids(export_collection(original))
    assert not set(copy.trails.values_list("pk", flat=True)) & set(
        original.trails.values_list("pk", flat=True)
    )
    timber = copy.trails.get(name="Timber")
    assert timber.geometry == TWO_PARTS
    assert len(export_collection(copy)["features"]) == 5  # two parts, a lift, two points


def test_the_export_keeps_what_the_published_file_leaves_out(original):
    features = export_collection(original)["features"]
    timber = next(f["properties"] for f in features if f["properties"]["name"] == "Timber")
    assert timber["status"] == "None"
    assert timber["activities"] == [
        {"value": "nordic-skate", "status": "Caution", "difficulty": "diamond"},
        {"value": "nordic-classic", "status": "Closed"},
    ]
    cam = next(f["properties"] for f in features if f["properties"]["name"] == "Cam")
    assert (cam["description"], cam["webCamUrl"]) == ("Summit.", "https://cams.example.test/1.jpg")


def test_an_unknown_system_is_refused():
    with pytest.raises(CommandError, match="No trail system with id nope"):
        run("export_trail_system", "nope")
