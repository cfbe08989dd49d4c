"""The Download export button in a real browser: the owner gets the export as a file."""

import json

import pytest
from django.test import Client
from django.urls import reverse

from moving.exporting import export_collection
from tests.factories import TrailFactory, TrailSystemFactory

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_owner_downloads_the_export_from_the_system_page(live_server, page, screenshot):
    system = TrailSystemFactory(
        name="Pine Hill Nordic", owner__is_staff=True, owner__is_superuser=True
    )
    TrailFactory(trail_system=system, name="Timber")
    client = Client()
    client.force_login(system.owner)
    page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )

    page.goto(live_server.url + reverse("admin:trails_trailsystem_change", args=[system.pk]))
    screenshot("moving-export-button")
    with page.expect_download() as download_info:
        page.get_by_role("link", name="Download export").click()
    download = download_info.value

    assert download.suggested_filename == f"pine-hill-nordic-{system.pk}.geojson"
    with open(download.path(), encoding="utf-8") as handle:
        assert json.load(handle) == export_collection(system)
