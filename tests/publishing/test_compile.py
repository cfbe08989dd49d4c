"""The compile as a pure function: plain rows in, the published file and statistics out."""

from datetime import UTC, datetime, timedelta

import pytest

from publishing.compile import (
    ActivityRow,
    PointRow,
    SystemRows,
    TrailRow,
    UpdateRow,
    all_systems_collection,
    compile_rows,
)

NOW = datetime(2026, 1, 15, 12, 0, tzinfo=UTC)
LINE = {"type": "LineString", "coordinates": [[-72.8, 43.6], [-72.79, 43.61]]}


def trail(id_="t1", **fields) -> TrailRow:
    fields.setdefault("name", f"Trail {id_}")
    fields.setdefault("geometry", LINE)
    fields.setdefault("status", "Open")
    return TrailRow(id=id_, **fields)


def update(id_="u1", type_="notice", *, age_minutes=10, expires_in_hours=24, **fields):
    return UpdateRow(
        id=id_,
        type=type_,
        expiration_date=NOW + timedelta(hours=expires_in_hours),
        updated_on=NOW - timedelta(minutes=age_minutes),
        **fields,
    )


def compiled_from(trails=(), points=(), updates=(), language="en"):
    return compile_rows(SystemRows(language, list(trails), list(points), list(updates)), NOW)


def features_of(compiled, kind="LineString"):
    return [f for f in compiled.feature_collection["features"] if f["geometry"]["type"] == kind]


def test_trail_feature_has_every_property_the_spec_lists():
    row = trail(
        "t1",
        name="Upper Loop",
        description="Scenic",
        status="Caution",
        difficulty="diamond",
        type="Standard",
        line_style="Dashed",
        distance=1.25,
        hidden=False,
        one_way=True,
        one_way_reversed=True,
        order=-3,
        categories=["nordic"],
        activities=[ActivityRow("skiing", "Open", "square")],
    )
    compiled = compiled_from([row])

    assert compiled.feature_collection["type"] == "FeatureCollection"
    [feature] = compiled.feature_collection["features"]
    assert feature["type"] == "Feature"
    assert feature["geometry"] == LINE
    assert feature["properties"] == {
        "trailId": "t1",
        "name": "Upper Loop",
        "description": "Scenic",
        "status": "Caution",
        "difficulty": "diamond",
        "type": "Standard",
        "lineStyle": "Dashed",
        "distance": 1.25,
        "hidden": False,
        "oneWay": True,
        "oneWayReversed": True,
        "order": -3,
        "categories": ["nordic"],
        "activities": [
            {
                "value": "skiing",
                "label": "Skiing",
                "iconClass": "icon-skiing",
                "status": "Open",
                "difficulty": "square",
            }
        ],
        "showInLists": True,
        "updates": {},
    }


@pytest.mark.parametrize(
    ("activity_statuses", "resolved"),
    [
        (["Closed", "Caution", "Open"], "Open"),
        (["Closed", "Caution"], "Caution"),
        (["Closed", "Closed"], "Closed"),
        ([], "Closed"),
    ],
)
def test_status_none_is_resolved_from_the_activities(activity_statuses, resolved):
    activities = [
        ActivityRow(value, status)
        for value, status in zip(["skiing", "hiking", "running"], activity_statuses, strict=False)
    ]
    compiled = compiled_from([trail(status="None", activities=activities)])

    [feature] = features_of(compiled)
    assert feature["properties"]["status"] == resolved
    assert getattr(compiled.statistics, f"{resolved.lower()}_trails") == 1


def test_a_stored_status_wins_over_the_activities():
    compiled = compiled_from([trail(status="Closed", activities=[ActivityRow("skiing", "Open")])])

    assert features_of(compiled)[0]["properties"]["status"] == "Closed"


def test_multilinestring_becomes_one_feature_per_part_shown_in_lists_once():
    parts = [[[-72.8, 43.6], [-72.79, 43.61]], [[-72.7, 43.5], [-72.6, 43.5]], LINE["coordinates"]]
    compiled = compiled_from(
        [trail("multi", geometry={"type": "MultiLineString", "coordinates": parts}, distance=3.0)]
    )

    features = features_of(compiled)
    assert [f["geometry"] for f in features] == [
        {"type": "LineString", "coordinates": part} for part in parts
    ]
    assert [f["properties"]["trailId"] for f in features] == ["multi"] * 3
    assert [f["properties"]["showInLists"] for f in features] == [True, False, False]
    assert compiled.statistics.total_trails == 1
    assert compiled.statistics.total_distance == 3.0


def test_activities_are_ordered_open_caution_closed_then_other():
    activities = [
        ActivityRow("hiking", "Closed"),
        ActivityRow("running", "Unknown"),
        ActivityRow("skiing", "Caution"),
        ActivityRow("walking", "Open"),
        ActivityRow("snowshoeing", "Open"),
    ]
    compiled = compiled_from([trail(activities=activities)])

    listed = features_of(compiled)[0]["properties"]["activities"]
    assert [(a["value"], a["status"]) for a in listed] == [
        ("walking", "Open"),
        ("snowshoeing", "Open"),
        ("skiing", "Caution"),
        ("hiking", "Closed"),
        ("running", "Unknown"),
    ]


def test_activity_without_difficulty_has_no_difficulty_key_and_labels_follow_the_language():
    compiled = compiled_from(
        [trail(activities=[ActivityRow("snowshoeing", "Open")])], language="fr"
    )

    [activity] = features_of(compiled)[0]["properties"]["activities"]
    assert activity == {
        "value": "snowshoeing",
        "label": "Raquette",
        "iconClass": "icon-snowshoeing",
        "status": "Open",
    }


@pytest.mark.parametrize(("stored", "published"), [("notRated", "notRated"), ("", ""), ("x", "")])
def test_difficulty_is_an_enum_value_or_empty_string(stored, published):
    compiled = compiled_from([trail(difficulty=stored)])

    assert features_of(compiled)[0]["properties"]["difficulty"] == published


def test_point_feature_has_its_published_properties_and_never_description_or_webcam():
    point = PointRow(
        id="p1",
        name="Summit cam",
        marker_class="web-cam",
        lat=43.6,
        lng=-72.8,
        status="Caution",
        hidden=True,
        wait_time=5,
        dining_options={"menu": True},
    )
    compiled = compiled_from(points=[point])

    [feature] = features_of(compiled, "Point")
    assert feature == {
        "type": "Feature",
        "geometry": {"type": "Point", "coordinates": [-72.8, 43.6]},
        "properties": {
            "pointId": "p1",
            "name": "Summit cam",
            "markerClass": "web-cam",
            "status": "Caution",
            "hidden": True,
            "waitTime": 5,
            "diningOptions": {"menu": True},
        },
    }


def test_statistics_count_by_resolved_status_and_leave_out_lifts_and_hidden_trails():
    trails = [
        trail("open", status="Open", distance=2.0),
        trail("caution", status="Caution", distance=1.5),
        trail("closed", status="Closed", distance=1.0),
        trail("derived", status="None", distance=0.5, activities=[ActivityRow("skiing", "Open")]),
        trail("lift", status="Open", type="Lift", distance=9.0),
        trail("hidden", status="Open", hidden=True, distance=9.0),
    ]
    compiled = compiled_from(trails)

    stats = compiled.statistics
    assert (stats.total_trails, stats.open_trails, stats.caution_trails, stats.closed_trails) == (
        4,
        2,
        1,
        1,
    )
    assert stats.total_distance == 5.0
    assert stats.open_distance == 2.5
    assert stats.caution_distance == 1.5
    # Lifts and hidden trails are still on the map.
    assert {f["properties"]["trailId"] for f in features_of(compiled)} >= {"lift", "hidden"}


def test_per_activity_totals_count_activity_statuses_of_counted_trails():
    trails = [
        trail("a", distance=1.0, activities=[ActivityRow("skiing", "Open")]),
        trail("b", distance=2.0, activities=[ActivityRow("skiing", "Caution")]),
        trail(
            "c",
            distance=4.0,
            activities=[ActivityRow("skiing", "Closed"), ActivityRow("hiking", "Open")],
        ),
        trail("lift", type="Lift", distance=8.0, activities=[ActivityRow("skiing", "Open")]),
        trail("hidden", hidden=True, activities=[ActivityRow("snowmobiling", "Open")]),
    ]
    compiled = compiled_from(trails)

    assert compiled.statistics.activity_totals == [
        {
            "value": "skiing",
            "label": "Skiing",
            "iconClass": "icon-skiing",
            "totalTrails": 3,
            "openTrails": 1,
            "cautionTrails": 1,
            "closedTrails": 1,
            "totalDistance": 7.0,
            "openDistance": 1.0,
            "cautionDistance": 2.0,
            "closedDistance": 4.0,
        },
        {
            "value": "hiking",
            "label": "Hiking",
            "iconClass": "icon-hiking",
            "totalTrails": 1,
            "openTrails": 1,
            "cautionTrails": 0,
            "closedTrails": 0,
            "totalDistance": 4.0,
            "openDistance": 4.0,
            "cautionDistance": 0.0,
            "closedDistance": 0.0,
        },
    ]


def test_surface_conditions_sit_on_their_trails_newest_first_with_condition_entries():
    older = update("old", "surfaceConditions", age_minutes=60, conditions=["icy"], trail_ids=("a",))
    newer = update(
        "new", "surfaceConditions", age_minutes=1, conditions=["groomed"], trail_ids=("a", "b")
    )
    compiled = compiled_from([trail("a"), trail("b"), trail("c")], updates=[older, newer])

    by_trail = {
        f["properties"]["trailId"]: f["properties"]["updates"] for f in features_of(compiled)
    }
    assert [u["id"] for u in by_trail["a"]["surfaceConditions"]] == ["new", "old"]
    assert [u["id"] for u in by_trail["b"]["surfaceConditions"]] == ["new"]
    assert by_trail["c"] == {}
    entry = by_trail["a"]["surfaceConditions"][0]
    assert entry == {
        "id": "new",
        "type": "surfaceConditions",
        "label": "Surface conditions",
        "conditions": [
            {
                "value": "groomed",
                "text": "Groomed",
                "en": "Groomed",
                "fr": "Damé",
                "iconClass": "icon-surface-groomed",
            }
        ],
        "expirationDate": "2026-01-16T12:00:00.000Z",
        "updatedOn": "2026-01-15T11:59:00.000Z",
    }
    assert compiled.statistics.published_updates == {}


def test_all_trails_update_sits_on_every_trail():
    groomed = update("g", "surfaceConditions", conditions=["groomed"], all_trails=True)
    compiled = compiled_from([trail("a"), trail("b")], updates=[groomed])

    assert all(
        [u["id"] for u in f["properties"]["updates"]["surfaceConditions"]] == ["g"]
        for f in features_of(compiled)
    )


def test_notice_with_trails_sits_on_those_trails_and_without_trails_on_the_system():
    on_trail = update("n1", description="Tree down", severity="danger", trail_ids=("a",))
    system_wide = update("n2", description="Parking full", link_url="https://x.test")
    compiled = compiled_from([trail("a")], updates=[on_trail, system_wide])

    [feature] = features_of(compiled)
    assert [u["id"] for u in feature["properties"]["updates"]["notice"]] == ["n1"]
    assert compiled.statistics.published_updates == {
        "notice": [
            {
                "id": "n2",
                "type": "notice",
                "label": "Notice",
                "description": "Parking full",
                "severity": "info",
                "linkUrl": "https://x.test",
                "expirationDate": "2026-01-16T12:00:00.000Z",
                "updatedOn": "2026-01-15T11:50:00.000Z",
            }
        ]
    }


def test_snow_reports_are_system_level_newest_first_with_the_snow_fields():
    old = update("s1", "snowReport", age_minutes=120, base_depth=30.0)
    new = update(
        "s2",
        "snowReport",
        age_minutes=5,
        base_depth=40.0,
        twenty_four_hours=5.0,
        last_snow_date=datetime(2026, 1, 14, tzinfo=UTC),
        last_snow_time="06:30",
        trail_ids=("a",),
    )
    compiled = compiled_from([trail("a")], updates=[old, new], language="fr")

    reports = compiled.statistics.published_updates["snowReport"]
    assert [r["id"] for r in reports] == ["s2", "s1"]
    assert reports[0] == {
        "id": "s2",
        "type": "snowReport",
        "label": "Bulletin de neige",
        "baseDepth": 40.0,
        "twentyFourHours": 5.0,
        "fourtyEightHours": None,
        "sevenDays": None,
        "seasonTotal": None,
        "lastSnowAmount": None,
        "upperElevationDepth": None,
        "lastSnowDate": "2026-01-14T00:00:00.000Z",
        "lastSnowMakingDate": None,
        "lastSnowTime": "06:30",
        "expirationDate": "2026-01-16T12:00:00.000Z",
        "updatedOn": "2026-01-15T11:55:00.000Z",
    }
    assert features_of(compiled)[0]["properties"]["updates"] == {}


def test_expired_updates_are_left_out():
    expired = [
        update("n", expires_in_hours=-1, description="old"),
        update("s", "surfaceConditions", expires_in_hours=0, conditions=["icy"], trail_ids=("a",)),
    ]
    compiled = compiled_from([trail("a")], updates=expired)

    assert compiled.statistics.published_updates == {}
    assert features_of(compiled)[0]["properties"]["updates"] == {}


def test_features_keep_the_trail_order_given_then_points():
    point = PointRow(id="p", name="Lot", marker_class="parking", lat=1.0, lng=2.0)
    compiled = compiled_from([trail("b"), trail("a")], points=[point])

    ids = [
        f["properties"].get("trailId") or f["properties"]["pointId"]
        for f in compiled.feature_collection["features"]
    ]
    assert ids == ["b", "a", "p"]


def test_all_systems_collection_has_one_point_per_located_system_with_the_legacy_properties():
    systems = [
        {
            "id": "ts1",
            "name": "Nordic Centre",
            "lat": 45.0,
            "lng": -72.0,
            "open_trails": 3,
            "caution_trails": 1,
            "closed_trails": 2,
            "activity_totals": [{"value": "skiing"}],
            "hidden_activities": ["hiking"],
        },
        {
            "id": "ts2",
            "name": "Bare",
            "lat": 46.0,
            "lng": -73.0,
            "open_trails": 0,
            "caution_trails": 0,
            "closed_trails": 0,
            "activity_totals": [],
            "hidden_activities": None,
        },
        {
            "id": "ts3",
            "name": "No location",
            "lat": None,
            "lng": None,
            "open_trails": 0,
            "caution_trails": 0,
            "closed_trails": 0,
            "activity_totals": [],
            "hidden_activities": None,
        },
    ]
    collection = all_systems_collection(systems)

    first, second = collection["features"]
    assert first["geometry"] == {"type": "Point", "coordinates": [-72.0, 45.0]}
    assert first["properties"] == {
        "name": "Nordic Centre",
        "tsId": "ts1",
        "openTrails": 3,
        "cautionTrails": 1,
        "closedTrails": 2,
        "activities": [{"value": "skiing"}],
        "hiddenActivities": ["hiking"],
    }
    assert second["geometry"] == {"type": "Point", "coordinates": [-73.0, 46.0]}
    assert "hiddenActivities" not in second["properties"]


def test_coordinates_are_published_with_at_most_six_decimals_in_the_same_shapes():
    """About 0.1 m: lines cut on the encoded text (fast), single points rounded."""
    multi = {
        "type": "MultiLineString",
        "coordinates": [
            [[-72.123456789, 43.987654321, 1234.56789], [-72.1, 43.9]],
            [[-72.2000004, 43.0000001], [-72.21, 43.01]],
        ],
    }
    point = PointRow(
        id="p", name="Lot", marker_class="parking", lat=43.123456789, lng=-72.987654321
    )

    compiled = compiled_from([trail(geometry=multi)], [point])

    first, second = features_of(compiled)
    assert first["geometry"] == {
        "type": "LineString",
        "coordinates": [[-72.123456, 43.987654, 1234.56789], [-72.1, 43.9]],
    }
    assert second["geometry"]["coordinates"] == [[-72.2, 43.0], [-72.21, 43.01]]
    # Cut past the sixth decimal, on the text.
    assert b"[[-72.123456,43.987654,1234.56789],[-72.1,43.9]]" in compiled.body
    assert b"[[-72.200000,43.000000],[-72.21,43.01]]" in compiled.body
    (published_point,) = features_of(compiled, "Point")
    assert published_point["geometry"]["coordinates"] == [-72.987654, 43.123457]
    assert multi["coordinates"][0][0][0] == -72.123456789  # the rows are left as they were
    system = {
        "id": "s",
        "name": "S",
        "lat": 44.12345678,
        "lng": -71.1234567,
        "open_trails": 0,
        "caution_trails": 0,
        "closed_trails": 0,
        "activity_totals": [],
        "hidden_activities": None,
    }
    (listed,) = all_systems_collection([system])["features"]
    assert listed["geometry"]["coordinates"] == [-71.123457, 44.123457]
