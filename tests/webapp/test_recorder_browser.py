"""The grooming recorder on a phone (Chromium at 390 x 844): emulated geolocation along a real
trail of the Blue Hills ski area (Accord Path, from OpenStreetMap), offline for part of the
way, then Stop: the session ends as the same pass the upload of the same track makes."""

import json
import re
from datetime import timedelta
from itertools import pairwise

import pytest
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect
from pyproj import Geod

from core.actors import Actor, Via
from grooming.models import GroomingPass, TrackerPosition
from grooming.services import record_grooming_track
from grooming.tracks import Track
from tests.browser import save_screenshot
from tests.factories import MembershipFactory, UserFactory
from tests.grooming.replay import AREA, blue_hills_system
from tests.webapp.test_browser import sign_in

pytestmark = pytest.mark.django_db(transaction=True)

ACCORD_PATH = "way/102239048"
STEP_METRES = 30.0
WGS84 = Geod(ellps="WGS84")


def along_accord_path() -> list[tuple[float, float]]:
    """(lng, lat) every STEP_METRES along the trail's real geometry."""
    feature = next(f for f in json.loads(AREA.read_text())["features"] if f["id"] == ACCORD_PATH)
    line = feature["geometry"]["coordinates"]
    points = [tuple(line[0][:2])]
    carried = 0.0
    for (lng0, lat0, *_), (lng1, lat1, *_) in pairwise(line):
        azimuth, _, length = WGS84.inv(lng0, lat0, lng1, lat1)
        at = STEP_METRES - carried
        while at <= length:
            lng, lat, _ = WGS84.fwd(lng0, lat0, azimuth, at)
            points.append((lng, lat))
            at += STEP_METRES
        carried = length - (at - STEP_METRES)
    return points


@pytest.mark.slow
def test_the_recorder_offline_for_part_of_the_way_ends_in_the_uploads_pass(live_server, browser):
    groomer = UserFactory(uid="groomer")
    system = blue_hills_system(UserFactory(uid="owner"))
    MembershipFactory(trail_system=system, user=groomer, role="Trustee")
    points = along_accord_path()
    context = browser.new_context(
        viewport={"width": 390, "height": 844},
        locale="en-US",
        permissions=["geolocation"],
        geolocation={"longitude": points[0][0], "latitude": points[0][1], "accuracy": 5},
    )
    context.set_default_timeout(20_000)
    page = context.new_page()
    problems = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    sign_in(page, live_server, groomer)
    page.goto(f"{live_server.url}/admin/trail-systems/{system.pk}/board/")
    page.click("#start-grooming-link")
    page.click("#start-recording")
    expect(page.locator("#recorder-status")).to_contain_text("Recording: ")

    offline = range(len(points) // 3, 2 * len(points) // 3)
    for i, (lng, lat) in enumerate(points):
        context.set_offline(i in offline)
        context.set_geolocation({"longitude": lng, "latitude": lat, "accuracy": 5})
        page.wait_for_timeout(1300)
        if i == offline[-1]:
            # Everything recorded offline is still on the phone.
            assert int(page.locator("#recorder-queued").text_content()) >= len(offline) - 1
            page.screenshot(path="test-output/screenshots/webapp-recorder-offline-phone.png")
    context.set_offline(False)
    page.click("#stop-recording")
    expect(page.locator("#recorder-status")).to_have_text("Grooming recorded.")
    expect(page.locator("#recorder-queued")).to_have_text("0")
    expect(page.locator("#recorder-trails")).to_contain_text("Accord Path")
    assert float(page.locator("#recorder-distance").text_content().split()[0]) > 0.4
    page.screenshot(path="test-output/screenshots/webapp-recorder-phone.png", full_page=True)
    assert problems == []

    stored = list(TrackerPosition.objects.order_by("recorded_at").values_list("lng", "lat"))
    assert set(stored) == {(lng, lat) for lng, lat in points}  # every position, none lost
    upload = record_grooming_track(
        system=system,
        track=Track([[list(p) for p in points]], timezone.now() - timedelta(seconds=1)),
        actor=Actor("groomer", Via.WEB_APP),
        dry_run=True,
    )
    grooming_pass = GroomingPass.objects.get()
    assert {(g.trail_id, g.coverage) for g in grooming_pass.groomed_trails.all()} == {
        (t.trail_id, t.coverage) for t in upload.trails
    }
    assert upload.trails
    context.close()


def test_the_status_line_says_what_the_recorder_does_and_the_pass_posts_the_condition_chosen(
    live_server, browser
):
    """Recording with its positions counted, those kept offline said as waiting for a
    connection, Stop offline, then "Grooming recorded." once the signal returns; never "No GPS
    fix yet." while positions flow. The pass posts the grooming condition picked."""
    groomer = UserFactory(uid="groomer")
    system = blue_hills_system(UserFactory(uid="owner"))
    MembershipFactory(trail_system=system, user=groomer, role="Trustee")
    points = along_accord_path()[:8]
    context = browser.new_context(
        viewport={"width": 390, "height": 844},
        locale="en-US",
        permissions=["geolocation"],
        geolocation={"longitude": points[0][0], "latitude": points[0][1], "accuracy": 5},
    )
    page = context.new_page()
    sign_in(page, live_server, groomer)
    page.goto(live_server.url + reverse("admin:trails_trailsystem_record", args=[system.pk]))
    status = page.locator("#recorder-status")
    page.get_by_label("Condition posted on the trails you groom").select_option(
        label="Groomed for classic"
    )
    page.click("#start-recording")
    expect(status).to_have_text(
        re.compile(r"Recording: \d+ positions?, all sent\."), timeout=12_000
    )
    context.set_offline(True)
    for lng, lat in points[1:]:
        context.set_geolocation({"longitude": lng, "latitude": lat, "accuracy": 5})
        page.wait_for_timeout(1100)
    expect(status).to_have_text(
        re.compile(r"Recording: \d+ positions, [1-9]\d* waiting for a connection\.")
    )
    save_screenshot(page, "webapp-recorder-status-offline-phone", full_page=False)
    page.click("#stop-recording")
    expect(status).to_have_text(
        re.compile(r"Stopped: \d+ positions? waiting for a connection, sent when it returns\.")
    )
    expect(page.locator("#recorder-condition")).to_be_disabled()
    context.set_offline(False)
    expect(status).to_have_text("Grooming recorded.", timeout=15_000)
    expect(page.locator("#recorder-queued")).to_have_text("0")
    page.wait_for_timeout(1500)  # a late GPS sample changes nothing after Stop
    expect(status).to_have_text("Grooming recorded.")
    save_screenshot(page, "webapp-recorder-status-recorded-phone", full_page=False)
    assert GroomingPass.objects.get().condition == "classicGroomed"
    assert TrackerPosition.objects.count() >= len(points) - 1
    context.close()
