"""The OpenAPI description and the docs page, which must work with no network at all."""

import re

import pytest
from django.core.management import call_command
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
    assert "/api/v1/schema" in html
    assert not re.search(r"https?://|//cdn", html)


def test_unknown_docs_asset(api, db):
    response = api.get("/api/v1/docs/assets/secrets.py")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
