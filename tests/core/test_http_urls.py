"""URL fields shown to people (e-mail links, embeds, the system's website) take http and
https only (defect 7)."""

import pytest

from tests.factories import PointFactory, UpdateFactory
from trails.models import TrailSystem

pytestmark = pytest.mark.django_db

HOSTILE = [
    "javascript:alert(1)",
    "JavaScript:alert(document.cookie)",
    "data:text/html,<script>alert(1)</script>",
    "vbscript:msgbox",
    "//evil.example/x",
    "http://",
    "ftp://files.example.org/a",
]


def error(response) -> tuple[int, str]:
    return response.status_code, response.json()["error"]["code"]


@pytest.mark.parametrize("url", HOSTILE)
def test_notice_link_url_takes_http_and_https_only(system, manager, url):
    response = manager.post(
        f"/api/v1/trail-systems/{system.pk}/updates",
        {"type": "notice", "description": "x", "linkUrl": url},
    )
    assert error(response) == (400, "invalid_field")
    assert response.json()["error"]["message"].startswith("linkUrl:")


@pytest.mark.parametrize("url", HOSTILE)
def test_point_web_cam_url_takes_http_and_https_only(system, manager, url):
    point = PointFactory(trail_system=system)
    response = manager.patch(f"/api/v1/points/{point.pk}", {"webCamUrl": url})
    assert error(response) == (400, "invalid_field")


@pytest.mark.parametrize("url", [u for u in HOSTILE if u != "//evil.example/x"])
def test_website_takes_http_and_https_only(system, manager, url):
    response = manager.patch(f"/api/v1/trail-systems/{system.pk}", {"website": url})
    assert error(response) == (400, "invalid_field")
    assert TrailSystem.objects.get(pk=system.pk).website == ""


@pytest.mark.parametrize(
    ("sent", "stored"),
    [
        ("https://example.org/a?b=c#d", "https://example.org/a?b=c#d"),
        ("HTTP://EXAMPLE.ORG", "HTTP://EXAMPLE.ORG"),
        ("example.org/ski", "http://example.org/ski"),
        ("", ""),
    ],
)
def test_website_keeps_http_urls_and_gives_bare_hosts_http(system, manager, sent, stored):
    response = manager.patch(f"/api/v1/trail-systems/{system.pk}", {"website": sent})
    assert response.status_code == 200
    assert TrailSystem.objects.get(pk=system.pk).website == stored


def test_http_links_are_kept_and_empty_clears(system, manager):
    point = PointFactory(trail_system=system, web_cam_url="https://cam.example.org/1")
    assert manager.patch(f"/api/v1/points/{point.pk}", {"webCamUrl": ""}).json()["webCamUrl"] == ""
    update = UpdateFactory(trail_system=system)
    response = manager.patch(f"/api/v1/updates/{update.pk}", {"linkUrl": "http://a.example/b"})
    assert response.json()["linkUrl"] == "http://a.example/b"
