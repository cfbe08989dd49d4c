"""The Grooming log page in a real browser: a week of three machines on the demo, read on a
phone, approved by its owner, and printed on A4."""

import re
from datetime import datetime, time, timedelta

import pytest
from django.conf import settings
from django.utils import timezone
from playwright.sync_api import expect

from apikeys.models import User
from core.actors import Actor, Via
from demo.loader import DEMO_OWNER_UID, load_demo
from grooming.models import Tracker
from grooming.services import record_grooming_track
from grooming.trackers import create_tracker
from grooming.tracks import parse_gpx
from tests.grooming.replay import drive
from tests.webapp.test_browser import sign_in
from trails.timezones import zone_of

pytestmark = pytest.mark.django_db(transaction=True)

TRACK = settings.BASE_DIR / "data" / "lost_trail_timber_trail_grooming.gpx"
PHONE = {"width": 390, "height": 844}


def timber_trail(ending: datetime) -> list[tuple[float, float, datetime]]:
    """The demo's Timber Trail track, its times shifted to end at `ending`."""
    track = parse_gpx(TRACK.read_bytes())
    shift = ending - track.last_time
    positions = [position for line in track.lines for position in line]
    return [
        (lng, lat, moment + shift)
        for (lng, lat, *_), moment in zip(positions, track.times, strict=True)
    ]


@pytest.fixture
def groomed_week():
    """Last week on the demo: two trackers and the owner's uploads, a session a day each."""
    system, _ = load_demo()
    zone = zone_of(system)
    today = timezone.now().astimezone(zone).date()
    monday = today - timedelta(days=today.weekday() + 7)
    owner = Actor(DEMO_OWNER_UID, Via.ID_TOKEN)
    trackers = []
    for name in ("PistenBully 600", "Snowcat 2"):
        tracker = create_tracker(system=system, name=name, actor=owner).tracker
        Tracker.objects.filter(pk=tracker.pk).update(created_on=timezone.now() - timedelta(30))
        tracker.refresh_from_db()
        trackers.append(tracker)
    for day in range(7):
        start = datetime.combine(monday + timedelta(days=day), time(6), tzinfo=zone)
        for hour, tracker in enumerate(trackers):
            drive(tracker, timber_trail(start + timedelta(hours=hour)), batch=1000)
        record_grooming_track(
            system=system,
            track=parse_gpx(TRACK.read_bytes()),
            actor=owner,
            groomed_at=start + timedelta(hours=5),
        )
    return system, monday


def test_a_week_of_three_machines_on_a_phone_approved_and_printed_on_a4(
    live_server, page, screenshot, groomed_week
):
    system, monday = groomed_week
    problems = []
    page.on("pageerror", lambda error: problems.append(str(error)))
    page.set_viewport_size(PHONE)
    sign_in(page, live_server, User.objects.get(pk=DEMO_OWNER_UID))
    page.goto(f"{live_server.url}/admin/trails/trailsystem/{system.pk}/overview/")
    page.click("#grooming-log-link")
    page.fill("input[name=from]", str(monday))
    page.fill("input[name=to]", str(monday + timedelta(days=6)))
    page.click("#log-period button[type=submit]")
    expect(page.locator("#log-sessions tbody tr")).to_have_count(21)
    expect(page.locator("#log-machines tbody tr")).to_have_count(3)
    expect(page.locator("#log-map path").first).to_be_visible()
    assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]
    # A session is a card: each value says what it is.
    first = page.locator("#log-sessions tbody tr").first
    expect(first).to_contain_text("PistenBully 600")
    expect(first).to_contain_text("05:44–06:00")  # the system's zone, America/Boise
    assert page.evaluate(
        "getComputedStyle(document.querySelector('#log-sessions td'), '::before').content"
    ).startswith('"Day')
    screenshot("webapp-grooming-log-phone", docs=True, full_page=False)

    page.click("#approve-period")
    expect(page.locator("#log-approval")).to_contain_text("Approved")
    expect(page.locator("#log-approval")).to_contain_text(DEMO_OWNER_UID)

    query = f"from={monday}&to={monday + timedelta(days=6)}"
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/admin/trails/trailsystem/{system.pk}/grooming_log/?{query}")
    screenshot("webapp-grooming-log-desk", docs=True, full_page=False)
    page.goto(
        f"{live_server.url}/admin/trails/trailsystem/{system.pk}/grooming_log/?{query}&print=1"
    )
    expect(page.locator("#print-approval")).to_contain_text("Approved by")
    pdf = page.pdf(format="A4", print_background=True)
    pages = len(re.findall(rb"/Type\s*/Page(?!s)", pdf))
    assert 1 <= pages <= 2, pages
    assert not problems
