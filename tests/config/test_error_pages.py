"""What a person sees at an unknown address or after a bug: the site's own page in the look of
where they were (the web app under /admin/, the public pages elsewhere), never Django's."""

import pytest
from django.test import Client

from tests.factories import TrailSystemFactory

pytestmark = pytest.mark.django_db

SECRET = "secret internals"


@pytest.fixture
def manager():
    client = Client(raise_request_exception=False)
    client.force_login(TrailSystemFactory().owner, backend="webapp.backends.RoleBackend")
    return client


def test_an_unknown_public_address_is_the_public_sites_page_in_the_visitors_language(client):
    response = client.get("/no-such-page", HTTP_ACCEPT_LANGUAGE="fr")
    page = response.content.decode()
    assert response.status_code == 404
    assert '<html lang="fr">' in page and "Page introuvable" in page
    assert "/static/public/public.css" in page and 'href="/"' in page


def test_an_unknown_web_app_address_is_a_web_app_page_with_its_menus(manager):
    response = manager.get("/admin/trails/no-such-page/")
    page = response.content.decode()
    assert response.status_code == 404
    assert "Page not found" in page and "Trail status" in page
    assert 'id="logout-form"' in page  # still signed in, with the web app's own tools


def test_a_row_that_is_not_the_managers_is_the_same_web_app_page(manager):
    other = TrailSystemFactory()
    response = manager.get(f"/admin/trails/trailsystem/{other.pk}/change/")
    assert response.status_code == 404
    assert "Page not found" in response.content.decode()


@pytest.mark.urls("tests.config.failing_urls")
@pytest.mark.parametrize(
    ("path", "look"),
    [("/broken", "/static/public/public.css"), ("/admin/broken", "/static/admin/css/base.css")],
)
def test_a_bug_is_the_sites_own_error_page_without_internals(manager, path, look):
    response = manager.get(path)
    page = response.content.decode()
    assert response.status_code == 500
    assert "Something went wrong" in page and look in page
    assert SECRET not in page and "Traceback" not in page
