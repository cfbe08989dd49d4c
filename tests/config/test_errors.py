"""Every error under /api/v1 is {"error": {"code", "message"}} with the spec's code."""

import logging
import re

import pytest

from tests.config.api_surface import assert_envelope
from tests.factories import UserFactory


@pytest.mark.django_db
@pytest.mark.parametrize("method", ["GET", "POST", "PUT", "PATCH", "DELETE"])
@pytest.mark.parametrize("path", ["/api/v1/nope", "/api/v1/keys/a/b", "/api/v1/me/"])
def test_unknown_route_is_not_found(api, method, path):
    error = assert_envelope(api.generic(method, path), 404, "not_found")
    assert path in error["message"]


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/v1/trail-systems//trails", "/api/v1/trail-systems//"])
def test_empty_trail_system_id_is_missing_trail_system(api, path):
    assert_envelope(api.post(path, {}, format="json"), 400, "missing_trail_system")


@pytest.mark.django_db
def test_known_path_with_another_method(client_for):
    response = client_for(UserFactory()).delete("/api/v1/me")
    assert_envelope(response, 405, "not_found")
    assert response["Allow"]


@pytest.mark.django_db
@pytest.mark.urls("tests.config.failing_urls")
def test_a_bug_is_a_logged_internal_error_without_traceback(api, caplog):
    caplog.set_level(logging.ERROR)
    response = api.get("/api/v1/broken")
    error = assert_envelope(response, 500, "internal_error")
    assert "secret" not in response.content.decode()
    assert "Traceback" not in response.content.decode()
    assert "secret internals" in caplog.text
    assert error["message"]


@pytest.mark.django_db
def test_validation_message_names_the_camel_case_field(client_for):
    client = client_for(UserFactory())
    error = assert_envelope(
        client.post("/api/v1/keys", {"name": "k", "expiresInDays": "soon"}, format="json"),
        400,
        "invalid_field",
    )
    assert re.match(r"^expiresInDays: ", error["message"])


@pytest.mark.django_db
def test_responses_are_camel_case_json_with_millisecond_dates(client_for):
    response = client_for(UserFactory()).post("/api/v1/keys", {"name": "k"}, format="json")
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert "trailSystemIds" in body and "trail_system_ids" not in body
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", body["createdOn"])


@pytest.mark.django_db
def test_html_accept_header_still_gets_json_errors(api):
    assert_envelope(api.get("/api/v1/me", HTTP_ACCEPT="text/html"), 401, "missing_credentials")
