import copy

import pytest

from apikeys.models import User
from publishing.models import CompileRequest
from tests.factories import PointFactory, TrailFactory
from trails.geometry import length_km
from trails.importing import (
    InvalidInput,
    create_trail_system,
    parse_member,
    read_collection,
    validate_role,
)
from trails.models import Membership, Point, Trail, TrailSystem

pytestmark = pytest.mark.django_db

LINE_A = [[-113.95, 45.69], [-113.949, 45.691], [-113.948, 45.693]]
LINE_B = [[-113.948, 45.693], [-113.947, 45.694]]
LINE_C = [[-113.94, 45.70], [-113.93, 45.71]]


def trail_feature(coordinates, **properties) -> dict:
    return {
        "type": "Feature",
        "geometry": {"type": "LineString", "coordinates": coordinates},
        "properties": properties,
    }


def point_feature(coordinates, **properties) -> dict:
    return {
        "type": "Feature",
        "geometry": {"type": "Point", "coordinates": coordinates},
        "properties": properties,
    }


TIMBER = {
    "trailId": "timberTrail000000001",
    "name": "Timber Trail",
    "description": "Rolling loop through the trees.",
    "status": "Caution",
    "difficulty": "square",
    "type": "Standard",
    "lineStyle": "Dashed",
    "hidden": True,
    "oneWay": True,
    "oneWayReversed": True,
    "order": -3,
    "categories": ["Nordic", "Loops"],
    "activities": [
        {"value": "nordic-skate", "status": "Open", "difficulty": "diamond",
         "label": "Skate skiing", "iconClass": "icon-skate-ski"},
        {"value": "nordic-classic", "status": "Closed"},
    ],
    # Derived in the published file; ignored on import.
    "distance": 99.0,
    "showInLists": True,
    "updates": {},
}  # fmt: skip


def published_file() -> dict:
    return {
        "type": "FeatureCollection",
        "features": [
            trail_feature(LINE_A, **TIMBER),
            point_feature(
                [-113.951, 45.688],
                pointId="lodgePoint0000000001",
                name="Lodge",
                description="Soup all day.",
                markerClass="wait-time",
                status="Caution",
                hidden=True,
                waitTime=12,
                diningOptions={"breakfast": True},
                webCamUrl="https://cams.example.test/lodge.jpg",
            ),
            trail_feature(LINE_B, **{**TIMBER, "showInLists": False}),
            trail_feature(LINE_C, trailId="chair1", name="Chair 1", type="Lift", status="Open"),
        ],
    }


def import_file(collection: dict, **kwargs) -> TrailSystem:
    return create_trail_system(
        name="Imported", owner_uid="uid-owner", collection=collection, **kwargs
    )


def test_every_trail_property_round_trips_and_same_trail_id_features_form_one_trail():
    system = import_file(published_file())

    assert system.trails.count() == 2
    trail = Trail.objects.get(pk="timberTrail000000001")
    assert trail.trail_system == system
    assert (trail.name, trail.description) == ("Timber Trail", "Rolling loop through the trees.")
    assert (trail.status, trail.difficulty, trail.type, trail.line_style) == (
        "Caution", "square", "Standard", "Dashed",
    )  # fmt: skip
    assert (trail.hidden, trail.one_way, trail.one_way_reversed) == (True, True, True)
    assert trail.order == -3
    assert trail.categories == ["Nordic", "Loops"]
    assert trail.geometry == {"type": "MultiLineString", "coordinates": [LINE_A, LINE_B]}
    assert trail.distance == pytest.approx(length_km(trail.geometry))  # not the file's 99
    assert 0.4 < trail.distance < 0.6
    assert (trail.lat, trail.lng) == (45.69, -113.95)
    assert trail.created_by == "uid-owner"
    assert [(a.value, a.status, a.difficulty, a.position) for a in trail.activities.all()] == [
        ("nordic-skate", "Open", "diamond", 0),
        ("nordic-classic", "Closed", "", 1),
    ]


def test_a_single_feature_trail_is_a_linestring_with_defaults():
    import_file(published_file())
    lift = Trail.objects.get(pk="chair1")
    assert lift.geometry == {"type": "LineString", "coordinates": LINE_C}
    assert (lift.type, lift.difficulty, lift.line_style, lift.hidden, lift.order) == (
        "Lift", "notRated", "Solid", False, 0,
    )  # fmt: skip
    assert lift.categories == []
    assert not lift.activities.exists()


def test_every_point_property_round_trips():
    system = import_file(published_file())
    point = Point.objects.get(pk="lodgePoint0000000001")
    assert point.trail_system == system
    assert (point.name, point.description, point.marker_class) == (
        "Lodge",
        "Soup all day.",
        "wait-time",
    )
    assert (point.status, point.hidden, point.wait_time) == ("Caution", True, 12)
    assert point.dining_options == {"breakfast": True}
    assert point.web_cam_url == "https://cams.example.test/lodge.jpg"
    assert (point.lat, point.lng) == (45.688, -113.951)


def test_features_without_ids_get_new_ones():
    collection = {
        "type": "FeatureCollection",
        "features": [
            trail_feature(LINE_A, name="A"),
            trail_feature(LINE_B, name="B"),
            point_feature([-113.9, 45.7], name="P", markerClass="parking"),
        ],
    }
    system = import_file(collection)
    assert sorted(system.trails.values_list("name", flat=True)) == ["A", "B"]
    assert all(len(pk) == 20 for pk in system.trails.values_list("pk", flat=True))
    assert system.points.get().status == "Open"


def test_the_system_gets_owner_members_tier_centre_and_one_compile():
    system = import_file(
        published_file(),
        members=[parse_member("uid-t=Trustee"), parse_member("uid-g=Grooming Crew")],
        tier="pro",
        inactive=True,
    )
    assert system.owner.uid == "uid-owner"
    assert system.subscription == "pro"
    assert system.inactive is True
    roles = dict(Membership.objects.filter(trail_system=system).values_list("user__uid", "role"))
    assert roles == {"uid-t": "Trustee", "uid-g": "Grooming Crew"}
    assert system.lat == pytest.approx((45.688 + 45.71) / 2)
    assert system.lng == pytest.approx((-113.951 + -113.93) / 2)
    assert CompileRequest.objects.filter(trail_system=system).count() == 1


BAD_FEATURES = [
    ("not a feature", "not a GeoJSON Feature"),
    ({"type": "Feature", "properties": {"name": "x"}}, "geometry is missing"),
    (
        {"type": "Feature", "geometry": {"type": "Polygon", "coordinates": []}, "properties": {}},
        "geometry type 'Polygon' cannot be imported",
    ),
    (trail_feature([[-113.9, 45.7]], name="Stub"), "geometry coordinates needs at least two"),
    (trail_feature([[-113.9, 45.7], [-200, 45.8]], name="Far"), "out of range"),
    (trail_feature(LINE_A), "name is required"),
    (trail_feature(LINE_A, name="  "), "name must be a non-empty string"),
    (trail_feature(LINE_A, name="x" * 201), "name is longer than 200"),
    (trail_feature(LINE_A, name="S", status="Groomed"), "status 'Groomed' is not one of"),
    (trail_feature(LINE_A, name="D", difficulty="black"), "difficulty 'black' is not one of"),
    (trail_feature(LINE_A, name="H", hidden="yes"), "hidden must be true or false"),
    (trail_feature(LINE_A, name="O", order="first"), "order must be an integer"),
    (trail_feature(LINE_A, name="C", categories="Nordic"), "categories must be a list"),
    (
        trail_feature(LINE_A, name="U", activities=[{"value": "curling", "status": "Open"}]),
        "unknown activity 'curling'",
    ),
    (
        trail_feature(LINE_A, name="L", activities=[{"value": ["hiking"], "status": "Open"}]),
        "unknown activity ['hiking']",
    ),
    (
        trail_feature(LINE_A, name="N", activities=[{"value": "hiking", "status": "None"}]),
        "activities[0].status 'None' is not one of",
    ),
    (
        trail_feature(LINE_A, name="T", activities=[{"value": "hiking"}, {"value": "hiking"}]),
        "hiking is listed twice",
    ),
    (
        trail_feature(LINE_A, name="K", categories=[f"c{i}" for i in range(51)]),
        "categories at most 50",
    ),
    (
        point_feature([-113.9, 45.7], name="J", markerClass="bar", webCamUrl="javascript:x()"),
        "webCamUrl must be an http:// or https:// URL",
    ),
    (point_feature([-113.9, 45.7], name="P"), "markerClass is required"),
    (point_feature([-113.9, 45.7], name="P", markerClass="igloo"), "markerClass 'igloo'"),
    (point_feature([-113.9, 95], name="P", markerClass="parking"), "out of range"),
    (point_feature("here", name="P", markerClass="parking"), "coordinates must be [lng, lat]"),
    (point_feature([-113.9, 45.7], name="W", markerClass="wait-time", waitTime=-1),
     "waitTime must be at least 0"),
    (point_feature([-113.9, 45.7], name="D", markerClass="bar", diningOptions="yes"),
     "diningOptions"),
    (point_feature([-113.9, 45.7], pointId="lodgePoint0000000001", name="T", markerClass="bar"),
     "is used by feature 1"),
]  # fmt: skip


@pytest.mark.parametrize(("feature", "reason"), BAD_FEATURES)
def test_a_bad_feature_is_reported_by_index_and_nothing_is_imported(feature, reason):
    collection = published_file()
    collection["features"].append(copy.deepcopy(feature))
    with pytest.raises(InvalidInput) as failure:
        import_file(collection)
    assert {problem.index for problem in failure.value.problems} == {4}
    assert reason in str(failure.value)
    assert not TrailSystem.objects.exists()
    assert not Trail.all_objects.exists()
    assert not Point.all_objects.exists()
    assert not User.objects.exists()
    assert not CompileRequest.objects.exists()


def test_every_bad_feature_is_reported_not_just_the_first():
    collection = published_file()
    collection["features"][1]["properties"]["markerClass"] = "igloo"
    collection["features"][3]["properties"]["status"] = "Shut"
    with pytest.raises(InvalidInput) as failure:
        import_file(collection)
    assert [str(p).split(":")[0] for p in failure.value.problems] == [
        "feature 1 (Lodge)",
        "feature 3 (Chair 1)",
    ]


def test_ids_already_in_the_database_are_reported():
    TrailFactory(id="chair1")
    PointFactory(id="lodgePoint0000000001")
    with pytest.raises(InvalidInput) as failure:
        import_file(published_file())
    assert failure.value.problems == [
        "1 trail and 1 point of this file already exist here (chair1, lodgePoint0000000001): "
        "--new-ids imports a copy."
    ]
    assert TrailSystem.objects.count() == 2  # only the factories' systems


@pytest.mark.parametrize("collection", [[], {"type": "Feature"}, {"type": "FeatureCollection"}])
def test_a_file_that_is_not_a_feature_collection_is_refused(collection):
    with pytest.raises(InvalidInput, match="Not a GeoJSON FeatureCollection"):
        import_file(collection)


def test_read_collection_explains_missing_and_malformed_files(tmp_path):
    with pytest.raises(InvalidInput, match="Cannot read"):
        read_collection(tmp_path / "missing.geojson")
    broken = tmp_path / "broken.geojson"
    broken.write_text('{"type": "FeatureCollection", ')
    with pytest.raises(InvalidInput, match="is not valid JSON"):
        read_collection(broken)


@pytest.mark.parametrize(
    ("role", "expected"),
    [
        ("Administrator", "Administrator"),
        ("trustee", "Trustee"),
        ("Grooming Crew", "Grooming Crew"),
    ],
)
def test_roles(role, expected):
    assert validate_role(role) == expected


@pytest.mark.parametrize("role", ["", "  ", "Crew1", "Crew-lead", "Two  spaces", "x" * 61])
def test_malformed_roles_are_refused(role):
    with pytest.raises(InvalidInput, match="Invalid role"):
        validate_role(role)


@pytest.mark.parametrize("spec", ["uid-only", "=Trustee", "uid with space=Trustee"])
def test_malformed_member_specs_are_refused(spec):
    with pytest.raises(InvalidInput):
        parse_member(spec)


def test_a_member_listed_twice_is_refused():
    with pytest.raises(InvalidInput, match="listed more than once"):
        create_trail_system(
            name="S", owner_uid="o", members=[("uid-a", "Trustee"), ("uid-a", "Administrator")]
        )
    assert not TrailSystem.objects.exists()
