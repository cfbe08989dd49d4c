"""The map's Grooming view in a real browser: trails by time since groomed (buckets, legend,
dash patterns), "Groomed for classic 2 h ago" in the popup and the list; the machines
grooming now where the system shows them, and nothing of them where it does not."""

import re
from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone
from playwright.sync_api import expect

from core.actors import Actor, Via
from core.compiles import request_compile
from grooming.services import record_grooming_track
from grooming.sessions import Position, end_running_session, receive_positions
from grooming.trackers import create_tracker
from grooming.tracks import Track
from tests.browser import save_screenshot
from tests.factories import TrailFactory, TrailSystemFactory, zone_at_midday
from tests.grooming.geo import path
from updates.models import Update
from updates.services import create_update

pytestmark = pytest.mark.django_db(transaction=True)
GROOMER = Actor("groomer", Via.ID_TOKEN)


@pytest.fixture
def live(live_server, settings):
    settings.PUBLIC_BASE_URL = live_server.url
    settings.MAP_POLL_SECONDS = 1
    return live_server


def nordic_system(**fields):
    """Three trails: groomed 2 h ago for classic, groomed 5 days ago, never groomed."""
    system = TrailSystemFactory(name="Pine Hill Nordic", time_zone=zone_at_midday(), **fields)
    lines = {
        "Meadow Loop": [(0, 0), (1500, 0)],
        "Ridge Run": [(0, 400), (1500, 400)],
        "Far Woods": [(0, 900), (1500, 900)],
    }
    trails = {
        name: TrailFactory(
            trail_system=system,
            name=name,
            geometry={"type": "LineString", "coordinates": path(corners, step=50)},
        )
        for name, corners in lines.items()
    }
    for name, days, condition in (
        ("Meadow Loop", 0, "classicGroomed"),
        ("Ridge Run", 5, "groomed"),
    ):
        record_grooming_track(
            system=system,
            track=Track([path(lines[name], step=20)], None),
            actor=GROOMER,
            condition=condition,
            groomed_at=timezone.now() - timedelta(days=days, hours=2),
        )
    with transaction.atomic():
        request_compile(system, reason="test")
    return system, trails


def test_the_grooming_view_colours_trails_by_freshness_with_a_legend_and_words(
    live, browser, settings
):
    system, trails = nordic_system()
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
    page = context.new_page()
    page.goto(f"{live.url}/map/{system.pk}")
    expect(page.locator("path.trail-line")).to_have_count(3)
    page.get_by_role("button", name="Grooming").click()
    expect(page.get_by_role("button", name="Grooming")).to_have_attribute("aria-pressed", "true")
    buckets = {
        trail.pk: page.locator(f'path.trail-line[data-trail-id="{trail.pk}"]')
        for trail in trails.values()
    }
    expect(buckets[trails["Meadow Loop"].pk]).to_have_attribute("data-grooming-bucket", "today")
    expect(buckets[trails["Ridge Run"].pk]).to_have_attribute("data-grooming-bucket", "4-6")
    expect(buckets[trails["Far Woods"].pk]).to_have_attribute("data-grooming-bucket", "older")
    # Not by colour alone: each bucket has its own dash pattern.
    dashes = {
        name: buckets[trail.pk].get_attribute("stroke-dasharray") for name, trail in trails.items()
    }
    assert len(set(dashes.values())) == 3
    legend = page.locator(".grooming-legend")
    expect(legend).to_be_visible()
    expect(legend.locator("li")).to_have_text(
        [
            "Today",
            "1\u20133 days",
            "4\u20136 days",
            "7\u201310 days",
            "11\u201314 days",
            "Older or never",
        ]
    )
    listed = page.locator(".trail-item", has_text="Meadow Loop").locator(".groomed-ago")
    expect(listed).to_have_text("Groomed for classic 2 h ago")
    page.locator(".trail-item", has_text="Far Woods").locator("button").click()
    expect(page.locator(".leaflet-popup .groomed-ago")).to_have_text(
        "Not groomed in the last 14 days"
    )
    page.screenshot(path="test-output/screenshots/map-grooming-view-phone.png", full_page=True)

    page.get_by_role("button", name="Status").click()
    expect(legend).to_be_hidden()
    expect(buckets[trails["Meadow Loop"].pk]).to_have_attribute("data-grooming-bucket", "")
    expect(page.locator(".groomed-ago")).to_have_count(0)
    context.close()


def test_the_embed_opens_in_the_grooming_view(live, page):
    system, trails = nordic_system()
    page.goto(f"{live.url}/embed/{system.pk}?view=grooming")
    expect(
        page.locator(f'path.trail-line[data-trail-id="{trails["Meadow Loop"].pk}"]')
    ).to_have_attribute("data-grooming-bucket", "today")
    expect(page.locator(".grooming-legend")).to_be_visible()


class Replayed:
    """A tracker of the system replaying a line east along Meadow Loop."""

    def __init__(self, system):
        self.tracker = create_tracker(system=system, name="PistenBully 1", actor=GROOMER).tracker
        self.track = path([(0, 0), (1500, 0)], step=100)

    def at(self, i: int) -> None:
        lng, lat = self.track[i]
        # 10 s a point (100 m): a groomer's pace, which the trackers' speed check lets by.
        moment = timezone.now() - timedelta(seconds=120 - 10 * i)
        receive_positions(tracker=self.tracker, positions=[Position(lng, lat, moment)])

    def moves_on(self, page) -> None:
        """Its marker is on the open map, and moves when the machine does."""
        selector = f'.groomer-marker[data-tracker-id="{self.tracker.pk}"]'
        expect(page.locator(selector)).to_have_count(1)
        before = page.locator(selector).bounding_box()
        self.at(10)
        page.wait_for_function(
            "([selector, x]) => { const m = document.querySelector(selector);"
            " return m && Math.abs(m.getBoundingClientRect().x - x) > 5; }",
            arg=[selector, before["x"]],
        )


def test_machines_grooming_now_move_on_the_map_by_the_stream_only_where_the_system_shows_them(
    live, page, settings
):
    settings.MAP_POLL_SECONDS = 600  # what moves within seconds came by the stream
    system, _ = nordic_system(groomers_live=True)
    machine = Replayed(system)
    machine.at(0)
    read = []

    def refuse_the_list(route):
        read.append(route.request.url)
        route.abort()

    page.route("**/groomers.json", refuse_the_list)
    page.goto(f"{live.url}/map/{system.pk}")
    expect(page.locator("#map-status")).to_have_attribute("data-connection", "live")
    machine.moves_on(page)
    end_running_session(tracker=machine.tracker)
    expect(page.locator(".groomer-marker")).to_have_count(0, timeout=15_000)
    assert read == []  # every place came by the stream

    hidden, _ = nordic_system()
    quiet = create_tracker(system=hidden, name="Quiet one", actor=GROOMER).tracker
    receive_positions(tracker=quiet, positions=[Position(*machine.track[0], timezone.now())])
    assert page.request.get(f"{live.url}/feeds/{hidden.pk}/groomers.json").json()["groomers"] == []
    page.goto(f"{live.url}/map/{hidden.pk}")
    expect(page.locator("path.trail-line")).to_have_count(3)
    html = page.content()
    assert "groomers.json" not in html and "Quiet one" not in html
    assert page.locator(".groomer-marker").count() == 0


def test_without_the_stream_the_machines_are_read_from_the_list(live, page):
    system, _ = nordic_system(groomers_live=True)
    machine = Replayed(system)
    machine.at(0)
    # A stream refused, as a flood's neighbour may be: the page polls every MAP_POLL_SECONDS.
    page.route(
        re.compile(r".*/map/[^/]+/events$"),
        lambda route: route.fulfill(status=503, body="no streams here"),
    )
    page.goto(f"{live.url}/map/{system.pk}")
    expect(page.locator("#map-status")).to_have_attribute("data-connection", "polling")
    machine.moves_on(page)


def test_a_pass_uploaded_hours_later_says_when_it_was_groomed(live, page):
    """A track uploaded now whose last point is 3 h old: groomed 3 h ago, not "just now"."""
    system = TrailSystemFactory(name="Pine Hill Nordic")
    line = path([(0, 0), (1500, 0)], step=50)
    TrailFactory(
        trail_system=system,
        name="Meadow Loop",
        geometry={"type": "LineString", "coordinates": line},
    )
    record_grooming_track(
        system=system,
        track=Track([path([(0, 0), (1500, 0)], step=20)], timezone.now() - timedelta(hours=3)),
        actor=GROOMER,
        condition="classicGroomed",
    )
    page.goto(f"{live.url}/map/{system.pk}")
    page.locator(".trail-item", has_text="Meadow Loop").locator("button").click()
    expect(page.locator(".leaflet-popup .conditions")).to_have_text("Groomed for classic · 3 h ago")

    page.get_by_role("button", name="Grooming").click()
    listed = page.locator(".trail-item", has_text="Meadow Loop").locator(".groomed-ago")
    expect(listed).to_have_text("Groomed for classic 3 h ago")


def test_a_trail_groomed_by_hand_or_by_track_tells_one_last_grooming_and_lifts_stand_apart(
    live, browser
):
    """A groomer's "Groomed for classic" posted by hand is the trail's last grooming, as a pass
    is: one time in the popup and the list, never "Not groomed" beside it; a later hand post
    beats an older pass. Lifts, never groomed, are drawn apart from every bucket."""
    system, trails = nordic_system()
    lift = TrailFactory(
        trail_system=system,
        name="Summit Chair",
        type="Lift",
        geometry={"type": "LineString", "coordinates": path([(200, 650), (1300, 650)], step=50)},
    )
    for trail, condition, minutes in (
        (trails["Far Woods"], "classicGroomed", 21),
        (trails["Ridge Run"], "track-set", 90),
    ):
        update = create_update(
            system=system,
            actor=GROOMER,
            type="surfaceConditions",
            conditions=[condition],
            trail_ids=[trail.pk],
        )
        Update.objects.filter(pk=update.pk).update(
            updated_on=timezone.now() - timedelta(minutes=minutes)
        )
    with transaction.atomic():
        request_compile(system, reason="test")
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
    page = context.new_page()
    page.goto(f"{live.url}/map/{system.pk}?view=grooming")
    line = page.locator(f'path.trail-line[data-trail-id="{trails["Far Woods"].pk}"]')
    expect(line).to_have_attribute("data-grooming-bucket", "today")
    far_woods = page.locator(".trail-item", has_text="Far Woods")
    expect(far_woods.locator(".groomed-ago")).to_have_text("Groomed for classic 21 min ago")
    expect(far_woods.locator(".conditions")).to_be_hidden()
    expect(page.get_by_text("Not groomed in the last 14 days")).to_have_count(0)
    ridge = page.locator(".trail-item", has_text="Ridge Run").locator(".groomed-ago")
    expect(ridge).to_have_text("Track set 1 h ago")
    far_woods.locator("button").click()
    expect(page.locator(".leaflet-popup .groomed-ago")).to_have_text(
        "Groomed for classic 21 min ago"
    )
    lift_line = page.locator(f'path.trail-line[data-trail-id="{lift.pk}"]')
    expect(lift_line).to_have_attribute("data-grooming-bucket", "lift")
    expect(lift_line).to_have_attribute("stroke", "#ffffff")
    expect(page.locator(".grooming-legend li").last).to_have_text("Lift (not groomed)")
    save_screenshot(page, "map-grooming-view-one-truth-phone")

    page.get_by_role("button", name="Status").click()
    expect(far_woods.locator(".conditions")).to_have_text("Groomed for classic · 21 min ago")
    expect(lift_line).not_to_have_attribute("stroke", "#ffffff")
    context.close()
