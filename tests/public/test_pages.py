"""The public pages through Django's test client: routes, languages, headers, 404s."""

import json
import re

import pytest
from django.template import Context, Template

from public.embeds import embed_snippets
from tests.factories import TrailSystemFactory
from updates.notifications.rendering import public_map_url

pytestmark = pytest.mark.django_db


def map_config(response) -> dict:
    match = re.search(
        r'<script id="map-config" type="application/json">(.*?)</script>',
        response.content.decode(),
        re.S,
    )
    return json.loads(match.group(1))


def test_the_link_in_notifications_opens_the_map(client, published_system, settings):
    settings.PUBLIC_BASE_URL = "http://testserver"
    path = public_map_url(published_system.pk).removeprefix("http://testserver")

    response = client.get(path)

    assert response.status_code == 200
    assert "Pine Hill Nordic" in response.content.decode()
    assert map_config(response)["systemUrl"] == f"/legacy/ts/{published_system.pk}"


def test_the_map_page_has_no_inline_script_or_style(client, published_system):
    """So that a strict Content-Security-Policy (script-src 'self') holds."""
    html = client.get(f"/map/{published_system.pk}").content.decode()

    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", html, re.S)
    assert scripts, "the page loads its scripts"
    for attributes, body in scripts:
        assert "src=" in attributes or 'type="application/json"' in attributes
        assert "src=" not in attributes or not body.strip()
    assert "style=" not in html
    assert not re.search(r"<[^>]+\son[a-z]+=", html)


def test_the_map_polls_at_the_configured_interval_and_draws_tiles_only_when_configured(
    client, published_system, settings
):
    config = map_config(client.get(f"/map/{published_system.pk}"))
    assert config["pollSeconds"] == 60
    assert config["tileUrl"] == ""

    settings.MAP_POLL_SECONDS = 5
    settings.MAP_TILE_URL = "https://tiles.example/{z}/{x}/{y}.png"
    settings.MAP_TILE_ATTRIBUTION = "© Example"
    config = map_config(client.get(f"/map/{published_system.pk}"))
    assert config["pollSeconds"] == 5
    assert config["tileUrl"] == "https://tiles.example/{z}/{x}/{y}.png"
    assert config["tileAttribution"] == "© Example"


def test_a_french_system_gets_a_french_map(client):
    system = TrailSystemFactory(name="Sentiers du Lac", language="fr")

    response = client.get(f"/map/{system.pk}")

    html = response.content.decode()
    assert 'lang="fr"' in html
    assert "Recevoir les alertes" in html
    assert map_config(response)["texts"]["closed"] == "Fermé"


@pytest.mark.parametrize("route", ["/map/{}", "/embed/{}", "/embed/{}/list"])
def test_unknown_and_inactive_systems_get_a_styled_404(client, route):
    inactive = TrailSystemFactory(inactive=True)

    for system_id in ("no-such-system", inactive.pk):
        response = client.get(route.format(system_id))
        assert response.status_code == 404
        html = response.content.decode()
        assert "Trail system not found" in html
        assert "/static/public/public.css" in html


def policy(response) -> dict[str, list[str]]:
    directives = [d.split() for d in response["Content-Security-Policy"].split(";") if d.strip()]
    return {name: values for name, *values in directives}


def test_only_the_embeds_may_be_framed_by_any_site(client, published_system):
    for path in (f"/embed/{published_system.pk}", f"/embed/{published_system.pk}/list"):
        response = client.get(path)
        assert response.status_code == 200
        assert policy(response)["frame-ancestors"] == ["*"]
        assert "X-Frame-Options" not in response

    for path in (f"/map/{published_system.pk}", "/"):
        response = client.get(path)
        assert response["X-Frame-Options"] == "DENY"
        assert policy(response)["frame-ancestors"] == ["'self'"]


def test_the_map_may_fetch_files_from_object_storage_and_tiles_from_their_server(
    client, published_system, settings
):
    settings.MAP_TILE_URL = "https://tiles.example/{z}/{x}/{y}.png"
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {
            "BACKEND": "storages.backends.s3.S3Storage",
            "OPTIONS": {"bucket_name": "maps", "custom_domain": "maps.example.net"},
        },
    }

    directives = policy(client.get(f"/map/{published_system.pk}"))

    assert "https://maps.example.net" in directives["connect-src"]
    assert "https://tiles.example" in directives["img-src"]
    assert directives["script-src"] == ["'self'"]


def test_the_embed_is_the_map_without_page_chrome(client, published_system):
    html = client.get(f"/embed/{published_system.pk}").content.decode()

    assert 'id="map"' in html
    assert "site-header" not in html
    assert "subscribe-form" not in html
    assert f'href="/map/{published_system.pk}"' in html


def test_the_embed_list_shows_each_visible_trail_with_status_and_activities(
    client, published_system
):
    html = client.get(f"/embed/{published_system.pk}/list").content.decode()

    rows = re.findall(
        r'<tr class="trail-row" data-trail-id="[^"]+" data-status="(\w+)">'
        r'\s*<th scope="row">([^<]+)',
        html,
    )
    assert [(status, name.strip()) for status, name in rows] == [
        ("Open", "Meadow Loop"),
        ("Caution", "Ridge Run"),
        ("Closed", "Beaver Pond"),
        ("Open", "Summit Lift"),
    ]
    assert "Classic skiing" in html
    assert "Secret Path" not in html


def test_the_embed_list_of_a_system_never_compiled_is_empty_not_an_error(client):
    system = TrailSystemFactory()

    response = client.get(f"/embed/{system.pk}/list")

    assert response.status_code == 200
    assert "trail-row" not in response.content.decode()


def test_the_index_lists_active_systems_with_open_and_total_trails(client, published_system):
    TrailSystemFactory(name="Closed For Good", inactive=True)

    html = client.get("/").content.decode()

    assert f'href="/map/{published_system.pk}"' in html
    assert "Pine Hill Nordic" in html
    # Lifts and hidden trails are not counted: Meadow Loop open of three trails.
    assert "1 trail open of 3" in html
    assert "Closed For Good" not in html


def test_embed_snippets_frame_the_map_and_the_list_from_the_public_address(settings):
    settings.PUBLIC_BASE_URL = "https://trails.example"
    system = TrailSystemFactory.build(pk="abc123", name='Bob & "Sons"', language="en")

    map_snippet, list_snippet = embed_snippets(system)

    assert 'src="https://trails.example/embed/abc123"' in map_snippet.html
    assert 'src="https://trails.example/embed/abc123/list"' in list_snippet.html
    assert "Bob &amp; &quot;Sons&quot;" in map_snippet.html


def test_the_embed_snippets_tag_shows_each_snippet_ready_to_copy(settings):
    settings.PUBLIC_BASE_URL = "https://trails.example"
    system = TrailSystemFactory.build(pk="abc123", name="Pine Hill", language="fr")

    html = Template("{% load public_embeds %}{% embed_snippets system %}").render(
        Context({"system": system})
    )

    assert "Carte" in html and "Liste d" in html
    # Escaped inside the textarea, so the page shows the exact HTML to paste.
    assert "&lt;iframe src=&quot;https://trails.example/embed/abc123&quot;" in html
