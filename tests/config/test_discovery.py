"""GET / and GET /update-types: no credential needed, generated from code and templates."""

import pytest

from tests.config.api_surface import ROWS, assert_envelope

# Spec section 2, "Enumerations", value for value.
SPEC_ENUMS = {
    "trailStatus": ["Open", "Caution", "Closed", "None"],
    "pointStatus": ["Open", "Caution", "Closed"],
    "difficulty": ["circle", "square", "diamond", "doubleDiamond", "terrainPark", "notRated"],
    "trailType": ["Standard", "Lift"],
    "lineStyle": ["Solid", "Dashed"],
    "markerClass": [
        "bar",
        "cabin",
        "dining",
        "dog-park",
        "fallen-tree",
        "first-aid",
        "fishing",
        "generic",
        "hazard",
        "ice",
        "ice-rink",
        "lodge",
        "lodging",
        "mud",
        "parking",
        "parking-busy",
        "parking-very-busy",
        "playground",
        "restaurant",
        "restroom",
        "scenic",
        "star",
        "trailhead",
        "wait-time",
        "water-access",
        "web-cam",
        "yurt",
    ],
    "updateType": ["notice", "surfaceConditions", "snowReport"],
    "noticeSeverity": ["info", "warning", "danger"],
    "surfaceConditions": [
        "compacted",
        "very-compacted",
        "dry",
        "frozen-granular",
        "groomed",
        "skateGroomed",
        "classicGroomed",
        "hard-packed",
        "icy",
        "leaf-covered",
        "light-snow",
        "loose-granular",
        "maintenance-in-progress",
        "muddy",
        "no-snow",
        "packed-powder",
        "powder",
        "raked-leaves",
        "snow-machine-packed",
        "soft",
        "very-soft",
        "track-set",
        "variable-conditions",
        "wet",
        "wet-granular",
        "wet-packed",
        "wet-snow",
        "windblown",
    ],
    "language": ["en", "fr"],
    "tempMeasurement": ["fahrenheit", "celsius"],
    "keyScopes": ["read", "write"],
}


@pytest.fixture
def root(api, db) -> dict:
    response = api.get("/api/v1/")
    assert response.status_code == 200
    return response.json()


def test_root_needs_no_credential_and_ignores_a_bad_one(api, db):
    assert api.get("/api/v1/").status_code == 200
    assert api.get("/api/v1/", HTTP_AUTHORIZATION="Bearer garbage").status_code == 200
    assert api.get("/api/v1/update-types", HTTP_X_API_KEY="tsk_nope").status_code == 200


def test_root_names_version_docs_and_auth(root, api):
    assert root["name"]
    assert root["version"] == "1"
    assert root["docs"] == "http://testserver/api/v1/docs"
    assert api.get(root["docs"]).status_code == 200
    assert "Authorization: Bearer" in root["auth"]["header"]
    assert root["auth"]["apiKeyPrefix"] == "tsk_"


def test_root_enums_are_the_spec_values(root):
    assert root["enums"] == SPEC_ENUMS


def test_root_endpoints_describe_our_routes(root):
    entries = {(e["method"], e["path"]): (e["credential"], e["scope"]) for e in root["endpoints"]}
    assert entries[("GET", "/")] == ("none", "none")
    assert entries[("GET", "/me")] == ("any", "read")
    assert entries[("POST", "/keys")] == ("ID token", "none")
    assert entries[("DELETE", "/keys/:id")] == ("ID token", "none")
    assert all(set(e) == {"method", "path", "credential", "scope"} for e in root["endpoints"])


def test_root_endpoints_cover_the_spec_summary_table(root):
    """Every row of the spec's table, with the spec's credential and scope."""
    listed = {(e["method"], e["path"], e["credential"], e["scope"]) for e in root["endpoints"]}
    missing = [
        str(row) for row in ROWS if (row.method, row.path, row.credential, row.scope) not in listed
    ]
    assert missing == []


def test_update_types_in_english_by_default(api, db):
    body = api.get("/api/v1/update-types").json()
    types = {entry["type"]: entry for entry in body["updateTypes"]}
    assert list(types) == ["notice", "surfaceConditions", "snowReport"]
    assert types["surfaceConditions"]["attachToTrails"] is True
    notice_fields = {field["property"]: field for field in types["notice"]["fields"]}
    assert notice_fields["description"]["required"] is True
    assert set(notice_fields["description"]) == {"property", "element", "label", "help", "required"}
    severity = notice_fields["severity"]
    assert [option["value"] for option in severity["options"]] == ["info", "warning", "danger"]
    assert types["notice"]["label"] == "Notice"
    snow = [field["property"] for field in types["snowReport"]["fields"]]
    assert "fourtyEightHours" in snow and "lastSnowTime" in snow
    conditions = types["surfaceConditions"]["fields"][0]
    assert [option["value"] for option in conditions["options"]] == SPEC_ENUMS["surfaceConditions"]


def test_update_types_in_french(api, db):
    by_query = api.get("/api/v1/update-types?language=fr").json()
    by_header = api.get("/api/v1/update-types", HTTP_ACCEPT_LANGUAGE="fr-CA,fr;q=0.9").json()
    assert by_query == by_header
    assert by_query["updateTypes"][0]["label"] == "Avis"


def test_update_types_unknown_language(api, db):
    error = assert_envelope(api.get("/api/v1/update-types?language=de"), 400, "invalid_field")
    assert error["message"].startswith("language:")
