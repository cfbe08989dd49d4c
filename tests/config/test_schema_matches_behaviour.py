"""The OpenAPI description says what the service does, and odd query values are refused
rather than silently read as something else (defect 10)."""

import re

import pytest
from jsonschema import Draft4Validator

from api.schema import NOT_ONLY_SPACES
from core.text import is_single_line
from tests.config.api_surface import assert_envelope
from tests.factories import PointFactory, TrailFactory, UserFactory
from tests.factories import create_api_key as new_key

pytestmark = pytest.mark.django_db


@pytest.fixture
def schema(api) -> dict:
    return api.get("/api/v1/schema").json()


def test_revoking_a_key_is_documented_as_the_200_it_answers(schema, client_for):
    user = UserFactory()
    key, _ = new_key(user)
    assert "200" in schema["paths"]["/keys/{key_id}"]["delete"]["responses"]
    assert "204" not in schema["paths"]["/keys/{key_id}"]["delete"]["responses"]
    assert client_for(user).delete(f"/api/v1/keys/{key.pk}").status_code == 200


@pytest.mark.parametrize(
    ("path", "method"), [("/keys", "get"), ("/keys", "post"), ("/keys/{key_id}", "delete")]
)
def test_key_routes_name_the_id_token_as_their_only_credential(schema, path, method):
    assert schema["paths"][path][method]["security"] == [{"idToken": []}]


def test_a_string_of_only_what_the_fields_trim_is_refused_by_the_schema():
    """The schema's "not only spaces" pattern holds exactly the characters str.strip()
    removes, which DRF trims before its blank check."""
    character = re.compile(NOT_ONLY_SPACES["pattern"])
    disagree = [
        hex(code)
        for code in range(0x110000)
        if (character.search(chr(code)) is None) is not chr(code).isspace()
    ]
    assert disagree == []


def test_the_schemas_name_pattern_refuses_exactly_what_the_services_refuse(schema):
    """Every code point: the published pattern of names and core.text's check agree, format
    characters (U+202E, U+200B...) included."""
    name = schema["components"]["schemas"]["TrailCreateRequest"]["properties"]["name"]
    pattern = re.compile(name["pattern"])
    disagree = [
        hex(code)
        for code in range(0x110000)
        if (pattern.match(f"a{chr(code)}b") is None) is is_single_line(f"a{chr(code)}b")
    ]
    assert disagree == []


def test_the_schema_says_a_key_body_refuses_members_it_does_not_know(schema, client_for):
    """A misspelt option ("scope") must not silently make an unrestricted key."""
    body = {"name": "Grooming tablet", "scope": ["read"]}
    validator = Draft4Validator({"$ref": "#/components/schemas/KeyCreateRequest", **schema})
    assert not validator.is_valid(body)
    assert validator.is_valid({"name": "Grooming tablet", "scopes": ["read"]})
    assert_envelope(client_for(UserFactory()).post("/api/v1/keys", body), 400, "invalid_field")


def test_a_grooming_track_body_is_documented_as_required(schema, system, manager):
    operation = schema["paths"]["/trail-systems/{system_id}/grooming-tracks"]["post"]
    assert operation["requestBody"]["required"] is True
    response = manager.post(f"/api/v1/trail-systems/{system.pk}/grooming-tracks")
    assert_envelope(response, 400, "invalid_geometry")


def test_an_unknown_language_is_a_documented_400(schema, api):
    assert "400" in schema["paths"]["/update-types"]["get"]["responses"]
    assert_envelope(api.get("/api/v1/update-types?language=xx"), 400, "invalid_field")


def test_request_minimums_and_geometry_are_in_the_schema(schema):
    components = schema["components"]["schemas"]
    hours = components["UpdateCreateRequest"]["properties"]["expiresInHours"]
    assert (hours["minimum"], hours["exclusiveMinimum"]) == (0, True)
    assert components["TrailsStatusRequest"]["properties"]["trailIds"]["minItems"] == 1
    assert components["UpdateCreateRequest"]["properties"]["conditions"]["minItems"] == 1
    assert components["KeyCreateRequest"]["properties"]["trailSystemIds"]["minItems"] == 1
    trail = components["TrailCreateRequest"]
    assert "geometry" in trail["required"]
    geometry = trail["properties"]["geometry"]
    assert "nullable" not in geometry
    kinds = {option["properties"]["type"]["enum"][0]: option for option in geometry["oneOf"]}
    assert set(kinds) == {"LineString", "MultiLineString"}
    assert kinds["LineString"]["properties"]["coordinates"]["minItems"] == 2


@pytest.mark.parametrize("hours", [0, -1, 0.0])
def test_expires_in_hours_must_be_greater_than_zero(system, manager, hours):
    response = manager.post(
        f"/api/v1/trail-systems/{system.pk}/updates",
        {"type": "notice", "description": "x", "expiresInHours": hours},
    )
    assert_envelope(response, 400, "invalid_field")


def test_a_null_geometry_is_refused_as_invalid_geometry(system, manager):
    response = manager.post(
        f"/api/v1/trail-systems/{system.pk}/trails", {"name": "X", "geometry": None}
    )
    assert_envelope(response, 400, "invalid_geometry")


@pytest.mark.parametrize(
    "query",
    ["all=null", "all=1", "all=", "all=yes"],
)
def test_all_takes_true_or_false_only(manager, query):
    assert_envelope(manager.get(f"/api/v1/trail-systems?{query}"), 400, "invalid_field")


@pytest.mark.parametrize("query", ["all=true", "all=false", "all=TRUE", ""])
def test_all_true_or_false_or_absent_is_read(manager, query):
    assert manager.get(f"/api/v1/trail-systems?{query}").status_code == 200


@pytest.mark.parametrize("query", ["include=xyz", "include=", "include=geojson"])
def test_include_takes_geojson_only(system, manager, query):
    TrailFactory(trail_system=system)
    response = manager.get(f"/api/v1/trail-systems/{system.pk}/trails?{query}")
    assert_envelope(response, 400, "invalid_field")
    assert "include" in response.json()["error"]["message"]


def test_include_expired_takes_true_or_false_only(system, manager):
    url = f"/api/v1/trail-systems/{system.pk}/updates"
    assert_envelope(manager.get(f"{url}?includeExpired=null"), 400, "invalid_field")
    assert manager.get(f"{url}?includeExpired=false").status_code == 200


def _update(system, trail) -> str:
    return f"/api/v1/trail-systems/{system.pk}/updates"


def _schedule(system, trail) -> str:
    return f"/api/v1/trail-systems/{system.pk}/schedules"


def _point(system, trail) -> str:
    return f"/api/v1/points/{PointFactory(trail_system=system).pk}"


def _status(system, trail) -> str:
    return f"/api/v1/trail-systems/{system.pk}/trails/status"


# (component, route, method, body, accepted): the rules between fields, as the schema says
# them and as the service applies them.
FIELD_RULE_CASES = [
    ("UpdateCreateRequest", _update, "post", {"type": "notice"}, False),
    ("UpdateCreateRequest", _update, "post", {"type": "notice", "description": "x"}, True),
    (
        "UpdateCreateRequest",
        _update,
        "post",
        {"type": "surfaceConditions", "conditions": ["dry"]},
        False,
    ),
    (
        "UpdateCreateRequest",
        _update,
        "post",
        {"type": "surfaceConditions", "conditions": ["dry"], "allTrails": True},
        True,
    ),
    ("UpdateCreateRequest", _update, "post", {"type": "snowReport"}, True),
    (
        "ScheduleCreateRequest",
        _schedule,
        "post",
        {
            "status": "Closed",
            "repeat": "once",
            "startsAt": "2099-01-01T10:00",
            "startTime": "10:00",
        },
        False,
    ),
    (
        "ScheduleCreateRequest",
        _schedule,
        "post",
        {"status": "Closed", "repeat": "daily", "startTime": "10:00", "endStatus": "Open"},
        False,
    ),
    (
        "ScheduleCreateRequest",
        _schedule,
        "post",
        {"status": "Closed", "repeat": "daily", "startTime": "10:00"},
        True,
    ),
    ("PatchedPointFieldsRequest", _point, "patch", {"lat": 45.0}, False),
    ("PatchedPointFieldsRequest", _point, "patch", {"lat": 45.0, "lng": -113.0}, True),
    ("TrailsStatusRequest", _status, "post", {"status": "Open"}, False),
    ("TrailsStatusRequest", _status, "post", {"status": "Open", "all": True}, True),
    # A string of spaces is blank where one character is required (DRF trims before it checks).
    ("TrailsStatusRequest", _status, "post", {"status": "Open", "trailIds": ["   "]}, False),
    ("TrailsStatusRequest", _status, "post", {"status": "Open", "trailIds": ["\x1f"]}, False),
    ("UpdateCreateRequest", _update, "post", {"type": "notice", "description": " "}, False),
    # A link with a NUL in it (PostgreSQL text cannot hold one).
    (
        "PatchedPointFieldsRequest",
        _point,
        "patch",
        {"webCamUrl": "https://cam.example/\x00"},
        False,
    ),
    ("PatchedPointFieldsRequest", _point, "patch", {"webCamUrl": "https://cam.example/a b"}, True),
    # A host starting with U+001F: a space to Python (the service), not to JavaScript's \s.
    ("PatchedPointFieldsRequest", _point, "patch", {"webCamUrl": "http://\x1fcam.example/"}, False),
]


@pytest.mark.parametrize(("component", "route", "method", "body", "accepted"), FIELD_RULE_CASES)
def test_the_rules_between_fields_are_in_the_schema(
    schema, system, manager, component, route, method, body, accepted
):
    trail = TrailFactory(trail_system=system)
    if component == "ScheduleCreateRequest":
        body = {**body, "trailIds": [trail.pk]}
    validator = Draft4Validator({"$ref": f"#/components/schemas/{component}", **schema})
    assert validator.is_valid(body) is accepted
    response = getattr(manager, method)(route(system, trail), body)
    assert (response.status_code < 300) is accepted, response.content
