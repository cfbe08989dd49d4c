"""Every feed answers as a reader and a cache expect: an ETag and a Last-Modified, 304 to a
conditional GET whose validator still holds, any origin may read it, kept no longer than its
ttl; the published map file too."""

import re

import pytest
from django.db import transaction

from core.actors import Actor, Via
from publishing.scheduling import record_compile_request
from publishing.storage import public_url
from tests.factories import TrailActivityFactory, TrailFactory, TrailSystemFactory
from trails.services import change_trail

pytestmark = pytest.mark.django_db

MANAGER = Actor("manager-uid", Via.ID_TOKEN)
ELSEWHERE = "https://elsewhere.example"
FEEDS = {
    "{id}.atom": 60,
    "{id}.ics": 60,
    "{id}/schedules.json": 60,
    "{id}/confirmations.json": 60,
    "{id}/grooming.json": 60,
    "{id}/groomers.json": 5,
    "{id}/closures.geojson": 5,
    "{id}/cap.atom": 60,
    "{id}/mtnxml.xml": 60,
    "schema/": 3600,
    "schema/published-map.json": 3600,
}


@pytest.fixture
def system(django_capture_on_commit_callbacks):
    """A published nordic system: every feed has something to say."""
    system = TrailSystemFactory(name="Pine Hill Nordic")
    trail = TrailFactory(trail_system=system, name="Race Course", status="Open")
    TrailActivityFactory(trail=trail, value="nordic-skate", status="Open")
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        record_compile_request(system, reason="test")
    system.refresh_from_db()
    return system


def max_age(response) -> int:
    return int(re.search(r"max-age=(?P<max>\d+)", response["Cache-Control"])["max"])


@pytest.mark.parametrize("feed", FEEDS)
def test_a_feed_answers_304_to_its_etag_and_any_origin_may_read_it(client, system, feed):
    url = "/feeds/" + feed.format(id=system.pk)
    first = client.get(url, headers={"Origin": ELSEWHERE})
    assert first.status_code == 200
    assert first["Access-Control-Allow-Origin"] == "*"
    assert "ETag" in first["Access-Control-Expose-Headers"]
    assert first["ETag"] and first["Last-Modified"]
    assert "public" in first["Cache-Control"]
    assert max_age(first) == FEEDS[feed]

    again = client.get(url, headers={"Origin": ELSEWHERE, "If-None-Match": first["ETag"]})
    assert again.status_code == 304
    assert again.content == b""
    assert again["ETag"] == first["ETag"]
    assert again["Access-Control-Allow-Origin"] == "*"
    since = client.get(url, headers={"If-Modified-Since": first["Last-Modified"]})
    assert since.status_code == 304
    assert client.get(url, headers={"If-None-Match": '"other"'}).status_code == 200


@pytest.mark.parametrize("feed", FEEDS)
def test_a_page_of_another_origin_may_send_the_etag_back(client, system, feed):
    preflight = client.options(
        "/feeds/" + feed.format(id=system.pk),
        headers={
            "Origin": ELSEWHERE,
            "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "if-none-match",
        },
    )
    assert preflight.status_code == 204
    assert preflight["Access-Control-Allow-Origin"] == "*"
    assert "if-none-match" in preflight["Access-Control-Allow-Headers"]


def test_a_change_answers_the_new_feed_with_a_new_etag_and_a_later_date(client, system):
    url = f"/feeds/{system.pk}.atom"
    before = client.get(url)
    trail = system.trails.get()
    change_trail(trail=trail, status="Closed", actor=MANAGER)
    after = client.get(url, headers={"If-None-Match": before["ETag"]})
    assert after.status_code == 200
    assert after["ETag"] != before["ETag"]
    assert after["Last-Modified"] != before["Last-Modified"]
    since = client.get(url, headers={"If-Modified-Since": before["Last-Modified"]})
    assert since.status_code == 200


def test_an_unknown_system_has_no_feed_whatever_the_validator(client):
    response = client.get("/feeds/nope/schedules.json", headers={"If-None-Match": "*"})
    assert response.status_code == 404
    assert "Cache-Control" not in response


def test_the_published_file_answers_304_to_its_etag(client, system):
    url = public_url(system.geo_json_path)
    first = client.get(url, headers={"Origin": ELSEWHERE})
    assert first.status_code == 200
    assert first["Access-Control-Allow-Origin"] == "*"
    assert first["ETag"] and first["Last-Modified"]
    assert client.get(url, headers={"If-None-Match": first["ETag"]}).status_code == 304
    assert client.get(url, headers={"If-Modified-Since": first["Last-Modified"]}).status_code == 304


def test_a_path_outside_the_media_folder_is_never_answered_304(client):
    response = client.get("/media/../../etc/hostname.geojson", headers={"If-None-Match": "*"})
    assert response.status_code in (400, 404)
