"""Static files reach a real browser without a collectstatic step: admin styles and Leaflet."""

import gzip
from pathlib import Path

import brotli
import pytest
from django.contrib.staticfiles import finders
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


@pytest.mark.django_db
@pytest.mark.parametrize("autorefresh", [False, True])
def test_the_map_script_and_stylesheet_go_compressed_to_a_browser_that_accepts_it(
    settings, autorefresh
):
    settings.WHITENOISE_AUTOREFRESH = autorefresh
    for path, encoding, decompress in (
        ("/static/public/map.js", "br", brotli.decompress),
        ("/static/public/public.css", "gzip", gzip.decompress),
    ):
        plain = Client().get(path)
        compressed = Client().get(path, headers={"Accept-Encoding": encoding})

        body = b"".join(plain.streaming_content)
        assert not plain.has_header("Content-Encoding")
        assert compressed["Content-Encoding"] == encoding
        assert "Accept-Encoding" in compressed["Vary"]
        sent = b"".join(compressed.streaming_content)
        assert len(sent) < len(body) / 2
        assert decompress(sent) == body == Path(finders.find(path[len("/static/") :])).read_bytes()


@pytest.mark.django_db
def test_an_edited_static_file_gets_new_copies(settings, tmp_path):
    """Under STATIC_AUTOREFRESH (make run), an edit is served at once, compressed too."""
    settings.WHITENOISE_AUTOREFRESH = True
    script = tmp_path / "edited.js"
    settings.STATICFILES_DIRS = [*settings.STATICFILES_DIRS, ("edited", tmp_path)]
    for version in ("first", "second"):
        script.write_text(f"var version = '{version}';\n" * 100)
        answer = Client().get("/static/edited/edited.js", headers={"Accept-Encoding": "gzip"})

        assert answer["Content-Encoding"] == "gzip"
        assert gzip.decompress(b"".join(answer.streaming_content)) == script.read_bytes()


def test_a_browser_asking_for_the_favicon_gets_the_sites_icon(client):
    answer = client.get("/favicon.ico", follow=True)

    assert answer.redirect_chain == [("/static/webapp/favicon.svg", 301)]
    assert answer.status_code == 200
    assert answer["Content-Type"] == "image/svg+xml"
    assert b"<svg" in b"".join(answer.streaming_content)
