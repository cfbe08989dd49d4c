"""API JSON and pages go gzipped to readers that accept it; answers that carry a secret never
do (BREACH), nor the live map's event streams."""

import gzip

import pytest

from tests.factories import TrailFactory

pytestmark = pytest.mark.django_db

GZIP = {"HTTP_ACCEPT_ENCODING": "gzip, deflate, br"}


def test_api_json_is_gzipped_for_a_reader_that_accepts_it(system, manager):
    TrailFactory.create_batch(5, trail_system=system)
    path = f"/api/v1/trail-systems/{system.pk}/trails"

    compressed = manager.get(path, **GZIP)
    plain = manager.get(path)

    assert compressed["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in compressed["Vary"]
    assert gzip.decompress(compressed.content) == plain.content
    assert not plain.has_header("Content-Encoding")
    assert len(plain.json()["trails"]) == 5


def test_a_new_key_and_a_webhook_secret_are_never_compressed(system, manager, client_for):
    key = client_for(system.owner).post(
        "/api/v1/keys", {"name": "Club site", "scopes": ["read"]}, format="json", **GZIP
    )
    hook = manager.post(
        f"/api/v1/trail-systems/{system.pk}/webhooks",
        {"url": "https://hooks.example.org/t", "events": ["trail.status_changed"]},
        format="json",
        **GZIP,
    )
    rotated = manager.post(
        f"/api/v1/trail-systems/{system.pk}/webhooks/{hook.json()['id']}/rotate-secret", **GZIP
    )

    for answer in (key, hook, rotated):
        assert answer.status_code in (200, 201), answer.content
        assert not answer.has_header("Content-Encoding")
    assert key.json()["key"] and hook.json()["secret"] and rotated.json()["secret"]


def test_the_public_map_page_is_gzipped(system, client):
    TrailFactory.create_batch(3, trail_system=system)

    page = client.get(f"/map/{system.pk}", **GZIP)

    assert page.status_code == 200
    assert page["Content-Encoding"] == "gzip"
    assert b"<html" in gzip.decompress(page.content)


def test_the_web_app_page_showing_a_new_key_is_never_compressed(system, client):
    client.force_login(system.owner)

    shown = client.post(
        "/admin/apikeys/apikey/add/",
        {"name": "Grooming tablet", "access": "read", "trail_system": system.pk},
        **GZIP,
    )

    assert shown.status_code == 200
    assert not shown.has_header("Content-Encoding")
    assert b'id="new-key"' in shown.content
