"""Security headers: the Content-Security-Policy (django-csp, widened per view) and no copy
of a new API key's plaintext kept by any cache (defect 8)."""

import pytest
from csp.decorators import csp_replace
from django.http import HttpResponse
from django.urls import include, path

pytestmark = pytest.mark.django_db


@csp_replace({"frame-ancestors": ["*"]})
def embeddable(request):
    return HttpResponse("<p>map</p>")


urlpatterns = [path("embed-example", embeddable), path("", include("config.urls"))]


def policy(response) -> dict[str, list[str]]:
    directives = [d.split() for d in response["Content-Security-Policy"].split(";") if d.strip()]
    return {name: values for name, *values in directives}


@pytest.mark.parametrize("url", ["/api/v1/docs", "/admin/login/", "/api/v1/"])
def test_pages_and_api_carry_a_policy_allowing_our_own_scripts_only(client, url):
    directives = policy(client.get(url))
    assert directives["script-src"] == ["'self'"]
    assert directives["frame-ancestors"] == ["'self'"]
    assert directives["object-src"] == ["'none'"]


def test_the_swagger_page_runs_under_the_policy(client):
    response = client.get("/api/v1/docs?script=")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/javascript")


@pytest.mark.urls(__name__)
def test_a_view_widens_the_policy_for_itself_only(client):
    assert policy(client.get("/embed-example"))["frame-ancestors"] == ["*"]
    assert policy(client.get("/api/v1/docs"))["frame-ancestors"] == ["'self'"]


def test_the_response_carrying_a_new_keys_plaintext_is_never_stored(system, manager):
    response = manager.post("/api/v1/keys", {"name": "ci"})
    assert response.status_code == 201
    assert "no-store" in response["Cache-Control"]
    listing = manager.get("/api/v1/keys")
    assert "key" not in listing.json()["keys"][0]
