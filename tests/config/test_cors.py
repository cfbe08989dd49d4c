"""Any origin may call /api/v1 from a browser, with the headers the API needs."""

import pytest

ORIGIN = "https://tools.example.org"


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/v1/keys", "/api/v1/trail-systems/abc", "/api/v1/"])
def test_preflight_allows_credentials_headers_by_name(api, path):
    response = api.options(
        path,
        HTTP_ORIGIN=ORIGIN,
        HTTP_ACCESS_CONTROL_REQUEST_METHOD="PATCH",
        HTTP_ACCESS_CONTROL_REQUEST_HEADERS="authorization,x-api-key,content-type",
    )
    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] == "*"
    allowed = {h.strip().lower() for h in response["Access-Control-Allow-Headers"].split(",")}
    assert {"authorization", "x-api-key", "content-type"} <= allowed
    assert "*" not in allowed
    methods = set(response["Access-Control-Allow-Methods"].split(", "))
    assert {"GET", "POST", "PATCH", "DELETE"} <= methods


@pytest.mark.django_db
def test_responses_and_errors_carry_cors_headers(api):
    for response in (
        api.get("/api/v1/", HTTP_ORIGIN=ORIGIN),
        api.get("/api/v1/me", HTTP_ORIGIN=ORIGIN),
    ):
        assert response["Access-Control-Allow-Origin"] == "*"
        exposed = {h.strip().lower() for h in response["Access-Control-Expose-Headers"].split(",")}
        assert {"www-authenticate", "etag", "location", "retry-after"} <= exposed


@pytest.mark.django_db
def test_refused_large_body_still_readable_by_the_browser(api):
    response = api.generic(
        "POST",
        "/api/v1/keys",
        "x" * (3 * 1024 * 1024),
        content_type="application/json",
        HTTP_ORIGIN=ORIGIN,
    )
    assert response.status_code == 413
    assert response["Access-Control-Allow-Origin"] == "*"


@pytest.mark.django_db
def test_admin_is_not_opened_to_other_origins(api):
    response = api.get("/admin/login/", HTTP_ORIGIN=ORIGIN)
    assert "Access-Control-Allow-Origin" not in response
