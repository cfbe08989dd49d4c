"""The OpenAPI description and the docs page, which must work with no network at all."""

import re

import pytest
from django.core.management import call_command
from drf_spectacular.drainage import GENERATOR_STATS
from drf_spectacular.validation import validate_schema


@pytest.fixture
def schema(api, db) -> dict:
    response = api.get("/api/v1/schema", HTTP_AUTHORIZATION="Bearer garbage")
    assert response.status_code == 200
    return response.json()


def test_schema_validates(schema):
    validate_schema(schema)
    assert schema["openapi"].startswith("3.")


def test_schema_command_validates(tmp_path, db):
    call_command("spectacular", "--validate", "--file", str(tmp_path / "schema.yaml"))


def test_schema_generation_has_no_errors_or_warnings(tmp_path, db):
    """--fail-on-warn exits non-zero on any error ("unable to guess serializer") or warning."""
    GENERATOR_STATS.reset()
    try:
        call_command(
            "spectacular", "--fail-on-warn", "--validate", "--file", str(tmp_path / "s.yaml")
        )
    except SystemExit as exit:  # pragma: no cover - the failure path
        pytest.fail(f"schema generation had errors or warnings (exit {exit.code})")
    assert not GENERATOR_STATS._error_cache and not GENERATOR_STATS._warn_cache


def test_schema_operation_ids_are_unique(schema):
    ids = [
        operation["operationId"]
        for operations in schema["paths"].values()
        for method, operation in operations.items()
        if method != "parameters"
    ]
    assert len(ids) == len(set(ids))


def body(schema: dict, holder: dict) -> dict:
    ref = holder["content"]["application/json"]["schema"]["$ref"]
    return schema["components"]["schemas"][ref.rsplit("/", 1)[1]]


def test_schema_describes_management_bodies(schema):
    trails = schema["paths"]["/trail-systems/{system_id}/trails"]
    create = trails["post"]
    request = body(schema, create["requestBody"])
    assert {"name", "geometry"} <= set(request["required"])
    created = body(schema, create["responses"]["201"])
    assert {"id", "trailSystemId", "name", "status", "geolocation"} <= set(created["properties"])
    listed = body(schema, trails["get"]["responses"]["200"])
    assert set(listed["properties"]) == {"trailSystemId", "trails"}
    assert [p["name"] for p in trails["get"]["parameters"] if p["in"] == "query"] == ["include"]

    trail = schema["paths"]["/trails/{id}"]
    assert "geoJson" in body(schema, trail["get"]["responses"]["200"])["properties"]
    assert "activities" in body(schema, trail["patch"]["requestBody"])["properties"]
    removed = body(schema, trail["delete"]["responses"]["200"])
    assert set(removed["properties"]) == {"ok", "id", "trashed"}
    deleted = body(schema, schema["paths"]["/updates/{id}"]["delete"]["responses"]["200"])
    assert set(deleted["properties"]) == {"ok", "id", "deleted"}

    compile_ = schema["paths"]["/trail-systems/{system_id}/compile"]["post"]
    assert set(body(schema, compile_["responses"]["202"])["properties"]) == {
        "ok",
        "compileRequestId",
    }
    systems = schema["paths"]["/trail-systems"]["get"]
    assert systems["operationId"] == "trail_systems_list"
    assert [p["name"] for p in systems["parameters"]] == ["all"]
    updates = schema["paths"]["/trail-systems/{system_id}/updates"]["get"]
    assert "includeExpired" in [p["name"] for p in updates["parameters"]]


def test_schema_describes_both_credentials(schema):
    schemes = schema["components"]["securitySchemes"]
    assert schemes["idToken"] == {
        "type": "http",
        "scheme": "bearer",
        "bearerFormat": "JWT",
        "description": schemes["idToken"]["description"],
    }
    assert schemes["apiKeyBearer"]["scheme"] == "bearer"
    assert schemes["apiKeyHeader"] == {
        "type": "apiKey",
        "in": "header",
        "name": "X-API-Key",
        "description": schemes["apiKeyHeader"]["description"],
    }
    me = schema["paths"]["/me"]["get"]
    assert {"idToken": []} in me["security"] and {"apiKeyHeader": []} in me["security"]


def test_schema_describes_the_error_envelope(schema):
    error = schema["components"]["schemas"]["Error"]
    assert set(error["properties"]["error"]["properties"]) == {"code", "message"}
    ref = {"$ref": "#/components/schemas/Error"}
    create_key = schema["paths"]["/keys"]["post"]["responses"]
    for status in ("400", "401", "403", "413", "500"):
        assert create_key[status]["content"]["application/json"]["schema"] == ref
    assert "401" not in schema["paths"]["/"]["get"]["responses"]


def test_schema_uses_camel_case(schema):
    properties = schema["components"]["schemas"]["KeyCreateRequest"]["properties"]
    assert {"name", "scopes", "trailSystemIds", "expiresInDays"} == set(properties)


def test_docs_page_loads_every_asset_from_this_server(api, db):
    response = api.get("/api/v1/docs")
    assert response.status_code == 200
    html = response.content.decode()
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert len(assets) >= 4
    for url in assets:
        assert url.startswith("/"), f"{url} would need the network"
        asset = api.get(url)
        assert asset.status_code == 200, url
        assert b"".join(asset.streaming_content) if asset.streaming else asset.content
    assert not re.search(r"https?://|//cdn", html)
    # No inline script (the Content-Security-Policy allows none): the start-up script is a file.
    assert not re.search(r"<script>", html)
    (script,) = [url for url in assets if "script" in url]
    assert "/api/v1/schema" in api.get(script).content.decode()


def test_unknown_docs_asset(api, db):
    response = api.get("/api/v1/docs/assets/secrets.py")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
