"""Static files reach a real browser without a collectstatic step: admin styles and Leaflet."""

import pytest
from django.test import Client


@pytest.mark.django_db(transaction=True)
def test_admin_login_page_is_styled_in_a_browser(live_server, page, screenshot):
    failed = []
    page.on("response", lambda r: failed.append(r.url) if r.status >= 400 else None)
    page.goto(f"{live_server.url}/admin/login/")
    header_colour = page.eval_on_selector("#header", "e => getComputedStyle(e).backgroundColor")
    screenshot("admin-login")
    assert failed == []
    assert header_colour not in ("rgba(0, 0, 0, 0)", "transparent")


def test_leaflet_is_served_from_the_npm_package(client):
    response = client.get("/static/vendor/leaflet/leaflet.js")
    assert response.status_code == 200
    assert b"Leaflet" in b"".join(response.streaming_content)


@pytest.mark.django_db
@pytest.mark.parametrize("autorefresh", [False, True])
def test_a_missing_static_file_is_not_found(settings, autorefresh):
    """With files re-read per request (make run's .env) as well as indexed at start-up."""
    settings.WHITENOISE_AUTOREFRESH = autorefresh
    for path in ("/static/nope.css", "/static/vendor/firebase/nope.js"):
        assert Client().get(path).status_code == 404
    assert Client().get("/static/vendor/firebase/firebase-app-compat.js").status_code == 200
