"""The update form in a real browser, at a phone's width and a desk's: one section per type,
the API's default expiry already there, its zone named and no note about a server's time, and
trails picked by searching, one line each, same-named trails told apart."""

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from tests.factories import MembershipFactory, TrailFactory, TrailSystemFactory
from tests.webapp.test_browser import sign_in
from trails.timezones import zone_of
from updates.models import Update

pytestmark = pytest.mark.django_db(transaction=True)

SNOW_FIELD = "#id_base_depth"


@pytest.fixture
def bear_creek():
    """A trustee's system with two trails named alike, and another system's trail."""
    system = TrailSystemFactory(name="Bear Creek Nordic")
    trustee = MembershipFactory(trail_system=system, user__uid="trustee", role="Trustee").user
    loops = [
        TrailFactory(trail_system=system, name="Aspen Loop", categories=["Nordic"],
                     difficulty="circle", distance=2.24),
        TrailFactory(trail_system=system, name="Aspen Loop", categories=["Snowshoe"],
                     difficulty="diamond", distance=0.56),
    ]  # fmt: skip
    TrailFactory(trail_system=system, name="Beaver Run")
    TrailFactory(name="Aspen Loop", trail_system=TrailSystemFactory(name="Elsewhere"))
    return system, trustee, loops


def open_form(page, live_server, system, kind: str) -> None:
    page.goto(f"{live_server.url}/admin/updates/update/add/?trail_system={system.pk}")
    page.select_option("#id_type", kind)


def expiry_shown(page, system) -> timedelta:
    """How far ahead of now the prefilled expiry is (shown in the system's zone)."""
    shown = (
        f"{page.input_value('#id_expiration_date_0')} {page.input_value('#id_expiration_date_1')}"
    )
    moment = timezone.make_aware(
        timezone.datetime.strptime(shown, "%Y-%m-%d %H:%M:%S"), zone_of(system)
    )
    return moment - timezone.now()


def saved(page) -> Update:
    page.click("input[name=_save]")
    expect(page.locator(".messagelist .success")).to_be_visible()
    return Update.objects.latest("created_on")


@pytest.mark.parametrize("viewport", [(390, 844), (1280, 900)], ids=["phone", "desk"])
def test_each_type_is_added_in_one_save_with_its_own_fields_and_the_default_expiry(
    viewport, live_server, page, screenshot, bear_creek
):
    system, trustee, (_, short_loop) = bear_creek
    page.set_viewport_size({"width": viewport[0], "height": viewport[1]})
    width = "phone" if viewport[0] < 500 else "desk"
    sign_in(page, live_server, trustee)

    open_form(page, live_server, system, "notice")
    expect(page.locator("#id_description")).to_be_visible()
    expect(page.locator(SNOW_FIELD)).to_be_hidden()
    expect(page.locator("#id_conditions")).to_be_hidden()
    assert timedelta(hours=23, minutes=58) < expiry_shown(page, system) <= timedelta(hours=24)
    # The expiry's zone is named with the time there; no "N hours ahead of server time".
    expect(page.locator("text=server time >> visible=true")).to_have_count(0)
    page.fill("#id_description", "Beaver Run closed for logging until Friday.")
    screenshot(f"webapp-update-notice-{width}", docs=True)
    notice = saved(page)
    assert (notice.type, notice.description) == (
        "notice",
        "Beaver Run closed for logging until Friday.",
    )
    assert abs(notice.expiration_date - (timezone.now() + timedelta(hours=24))) < timedelta(
        minutes=3
    )

    open_form(page, live_server, system, "surfaceConditions")
    expect(page.locator(SNOW_FIELD)).to_be_hidden()
    expect(page.locator("#id_description")).to_be_hidden()
    page.check("input[name=conditions][value=track-set]")
    picker = page.locator(".trail-picker")
    picker.locator(".trail-picker-search").fill("aspen")
    options = picker.locator(".trail-picker-option:visible")
    expect(options).to_have_count(2)  # this system's two, not Elsewhere's
    if width == "desk":  # each trail on one line, not wrapped in a narrow column
        heights = [option.bounding_box()["height"] for option in options.all()]
        assert max(heights) < 2 * min(heights) and max(heights) < 40, heights
    assert sorted(text.strip() for text in options.all_inner_texts()) == [
        "Aspen Loop (Nordic · Circle · 2.2 km)",
        "Aspen Loop (Snowshoe · Diamond · 0.6 km)",
    ]
    picker.locator(".trail-picker-search").fill("aspen snowshoe")
    expect(options).to_have_count(1)
    options.first.locator("input").check()
    expect(picker.locator(".trail-picker-count")).to_have_text("Ticked: 1")
    screenshot(f"webapp-update-conditions-{width}", docs=True)
    conditions = saved(page)
    assert conditions.conditions == ["track-set"]
    assert list(conditions.trails.all()) == [short_loop]

    open_form(page, live_server, system, "snowReport")
    expect(page.locator(SNOW_FIELD)).to_be_visible()
    expect(page.locator(".trail-picker")).to_be_hidden()  # a snow report is the whole system's
    expect(page.locator("#id_all_trails")).to_be_hidden()
    expect(page.locator("#id_description")).to_be_hidden()
    page.fill(SNOW_FIELD, "85")
    report = saved(page)
    assert (report.type, report.base_depth) == ("snowReport", 85)
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport[0]
