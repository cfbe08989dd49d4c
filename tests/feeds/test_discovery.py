"""/feeds/<id>/index.json, read as a GBFS client reads gbfs.json: every feed of the system
with its URL, format and ttl, the terms of reuse, and each feed it names fetched again
conditionally (304) from another origin."""

from io import StringIO
from urllib.parse import urlsplit

import pytest
from django.core.management import call_command
from django.db import transaction

from demo.loader import DEMO_SYSTEM_ID, load_demo
from public.feed_schemas import problems
from publishing.scheduling import record_compile_request
from tests.factories import TrailActivityFactory, TrailFactory, TrailSystemFactory

pytestmark = pytest.mark.django_db

ELSEWHERE = "https://elsewhere.example"
EVERY_FEED = {
    "published_map", "closures", "open511_json", "open511_xml", "open511_jurisdiction", "cap",
    "mtnxml", "atom", "ical", "schedules", "confirmations", "grooming", "groomers",
}  # fmt: skip


def discovery(client, system) -> dict:
    response = client.get(f"/feeds/{system.pk}/index.json", headers={"Origin": ELSEWHERE})
    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] == "*"
    document = response.json()
    assert problems("discovery", document) == []
    return document


def test_the_demo_lists_every_feed_each_answers_304_to_its_etag_from_any_origin(
    client, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        system, _ = load_demo()
    system.refresh_from_db()
    document = discovery(client, system)
    assert document["ttl"] == 60
    data = document["data"]
    assert data["license_url"] == "https://opendatacommons.org/licenses/odbl/1-0/"
    assert data["attribution_organization_name"] == "OpenStreetMap contributors"
    assert data["attribution_url"] == "https://www.openstreetmap.org/copyright"
    feeds = {feed["name"]: feed for feed in data["feeds"]}
    assert set(feeds) == EVERY_FEED
    assert feeds["mtnxml"]["format"] == "application/xml"
    assert feeds["groomers"]["ttl"] == 5

    for feed in data["feeds"]:
        path = urlsplit(feed["url"]).path
        first = client.get(path, headers={"Origin": ELSEWHERE})
        assert first.status_code == 200, feed["name"]
        assert first["Content-Type"].split(";")[0] == feed["format"], feed["name"]
        assert first["Access-Control-Allow-Origin"] == "*", feed["name"]
        age = first["Cache-Control"].split("max-age=")[1].split(",")[0]
        if feed["name"] != "published_map":  # its name changes instead (kept a year)
            assert int(age) <= feed["ttl"], feed["name"]
        again = client.get(path, headers={"Origin": ELSEWHERE, "If-None-Match": first["ETag"]})
        assert again.status_code == 304, feed["name"]


def test_a_system_without_ski_trails_or_terms_lists_no_ski_report_and_the_services_licence(
    client, django_capture_on_commit_callbacks, settings
):
    system = TrailSystemFactory()
    TrailActivityFactory(trail=TrailFactory(trail_system=system), value="hiking")
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        record_compile_request(system, reason="test")
    system.refresh_from_db()
    data = discovery(client, system)["data"]
    assert "mtnxml" not in {feed["name"] for feed in data["feeds"]}
    assert data["license_url"] == settings.FEEDS_LICENSE_URL
    assert "attribution_organization_name" not in data


def test_check_feeds_validates_the_discovery_file(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        load_demo()
    out = StringIO()
    call_command("check_feeds", DEMO_SYSTEM_ID, stdout=out)
    assert f"discovery (/feeds/{DEMO_SYSTEM_ID}/index.json): valid" in out.getvalue()
