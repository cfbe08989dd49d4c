import json
from collections import Counter

import pytest
from django.conf import settings

from trails import osm

DATA_FILE = settings.BASE_DIR / "data" / "lost_trail_powder_mtn_osm.geojson"


@pytest.fixture(scope="module")
def source() -> dict:
    with open(DATA_FILE, encoding="utf-8") as handle:
        return json.load(handle)


@pytest.fixture(scope="module")
def converted(source) -> dict:
    return osm.convert(source)


def trails_by_name(converted: dict) -> dict[str, list[dict]]:
    found: dict[str, list[dict]] = {}
    for feature in converted["features"]:
        found.setdefault(feature["properties"]["name"], []).append(feature)
    return found


def first(converted: dict, name: str) -> dict:
    return trails_by_name(converted)[name][0]["properties"]


def test_the_repository_copy_keeps_its_odbl_attribution(source):
    assert source["license"] == "ODbL-1.0"
    assert source["attribution"].startswith("© OpenStreetMap contributors.")


@pytest.mark.parametrize(
    ("osm_value", "expected"),
    [
        ("novice", "circle"),
        ("easy", "circle"),
        ("intermediate", "square"),
        ("advanced", "diamond"),
        ("expert", "doubleDiamond"),
        ("freeride", "notRated"),
        ("extreme", "notRated"),
        (None, "notRated"),
    ],
)
def test_difficulty_mapping(osm_value, expected):
    assert osm.difficulty(osm_value) == expected


@pytest.mark.parametrize(
    ("piste_type", "grooming", "expected"),
    [
        ("downhill", None, ["skiing"]),
        ("nordic", "classic+skating", ["nordic-classic", "nordic-skate"]),
        ("nordic", "skating", ["nordic-skate"]),
        ("nordic", "classic", ["nordic-classic"]),
        ("nordic", "classic;mogul", ["nordic-classic"]),
        ("nordic", None, ["nordic-classic", "nordic-skate"]),
        ("hike", None, ["hiking"]),
        ("nordic;hike", "skating", ["nordic-skate", "hiking"]),
        ("snow_park", None, ["skiing"]),
        ("yes", None, []),
        (None, None, []),
    ],
)
def test_piste_activities(piste_type, grooming, expected):
    assert osm.piste_activities(piste_type, grooming) == expected


def test_a_snow_park_is_skiing_in_the_terrain_park():
    properties = {"kind": "piste", "piste_type": "snow_park", "difficulty": "easy"}
    assert osm.trail_difficulty(properties) == "terrainPark"
    assert osm.activities(properties) == ["skiing"]


def test_trail_ways_are_hiking_and_mountain_biking_when_tagged_for_bikes():
    assert osm.activities({"kind": "trail", "tags": {}}) == ["hiking"]
    assert osm.activities({"kind": "trail", "tags": {"mtb:scale": "1"}}) == [
        "hiking",
        "mountain-biking",
    ]


def test_lifts_become_lift_trails_without_activities(converted, source):
    lifts = {
        f["properties"]["trailId"]
        for f in converted["features"]
        if f["properties"]["type"] == "Lift"
    }
    assert lifts == {osm.osm_id(f) for f in source["features"] if f["properties"]["kind"] == "lift"}
    assert len(lifts) == 8
    chair = first(converted, "Chair 1")
    assert (chair["type"], chair["activities"], chair["oneWay"]) == ("Lift", [], True)
    assert chair["categories"] == ["Lifts"]


def test_difficulties_and_activities_on_the_real_data(converted):
    skate_only = first(converted, "Gibbons Pass Road")  # route, grooming "skating"
    assert [a["value"] for a in skate_only["activities"]] == ["nordic-skate"]
    assert skate_only["difficulty"] == "circle"
    both = first(converted, "Technique")
    assert [a["value"] for a in both["activities"]] == ["nordic-classic", "nordic-skate"]
    run = first(converted, "The Ripper")
    assert run["activities"] == [{"value": "skiing", "status": "Open"}]
    assert run["categories"] == ["Alpine"]
    difficulties = Counter(
        f["properties"]["difficulty"]
        for f in converted["features"]
        if f["properties"]["showInLists"] and f["properties"]["type"] == "Standard"
    )
    assert set(difficulties) <= {"circle", "square", "diamond", "doubleDiamond", "notRated"}
    assert difficulties["doubleDiamond"] == 2  # the two `expert` runs


def test_piste_routes_become_multiline_trails_and_absorb_their_ways(converted, source):
    route = next(
        f
        for f in source["features"]
        if f["properties"]["kind"] == "route" and f["properties"]["name"] == "Timber Trail"
    )
    timber = trails_by_name(converted)["Timber Trail"]
    assert {f["properties"]["trailId"] for f in timber} == {osm.osm_id(route)}
    assert len(timber) == len(route["geometry"]["coordinates"]) > 1
    assert [f["properties"]["showInLists"] for f in timber] == [True] + [False] * (len(timber) - 1)
    assert all(f["geometry"]["type"] == "LineString" for f in converted["features"])


def test_hiking_routes_are_kept_as_summer_hiking_trails(converted):
    divide = first(converted, "Divide Trail")
    assert [a["value"] for a in divide["activities"]] == ["hiking"]
    assert (divide["categories"], divide["lineStyle"]) == (["Summer"], "Dashed")


def test_unnamed_pistes_and_lifts_are_named_unnamed_trail_ways_and_polygons_skipped(converted):
    names = {f["properties"]["name"] for f in converted["features"]}
    assert {"Unnamed nordic trail 1", "Unnamed run 1", "Unnamed lift 1"} <= names
    assert all(name for name in names)
    polygon = {
        "type": "FeatureCollection",
        "features": [
            {
                "type": "Feature",
                "id": "way/1",
                "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 0]]]},
                "properties": {"kind": "piste", "name": "Bowl", "piste_type": "downhill"},
            },
            {
                "type": "Feature",
                "id": "way/2",
                "geometry": {"type": "LineString", "coordinates": [[0, 0], [1, 1]]},
                "properties": {"kind": "trail", "name": None, "tags": {}},
            },
        ],
    }
    assert osm.convert(polygon)["features"] == []


def test_ids_are_stable_and_every_trail_listed_once(converted):
    again = osm.convert(json.loads(DATA_FILE.read_text(encoding="utf-8")))
    assert again == converted
    listed = [
        f["properties"]["trailId"] for f in converted["features"] if f["properties"]["showInLists"]
    ]
    assert len(listed) == len(set(listed)) == 109
