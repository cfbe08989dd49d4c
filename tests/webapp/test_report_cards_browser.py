"""Rider reports on a phone (Chromium at 390 x 844): a report near one of two trails of the
same name says which, as the board does; a grouped report lists every reporter's address, for
an Administrator only; as drawn by the page and as its script draws it again; no bullet beside
a card."""

import re

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from demo.loader import load_demo
from tests.browser import save_screenshot
from tests.factories import MembershipFactory, ReportFactory
from tests.webapp.test_browser import sign_in
from trails.models import Trail

pytestmark = pytest.mark.django_db(transaction=True)


def cards_of(page, trail_name: str):
    return page.locator(".report").filter(has=page.get_by_text(f"m from {trail_name}"))


@pytest.mark.parametrize("role", ["Administrator", "Trustee"])
def test_report_cards_tell_twins_apart_and_list_every_reporter(live_server, browser, role):
    system, _ = load_demo()
    whoopees = list(Trail.objects.filter(trail_system=system, name="Whoopee").order_by("pk"))[:2]
    first = ReportFactory(
        trail_system=system,
        trail=whoopees[0],
        trail_distance_km=0.02,
        lat=whoopees[0].lat,
        lng=whoopees[0].lng,
        email="first@example.test",
    )
    ReportFactory(
        trail_system=system,
        duplicate_of=first,
        trail=whoopees[0],
        trail_distance_km=0.03,
        lat=whoopees[0].lat,
        lng=whoopees[0].lng,
        email="second@example.test",
    )
    ReportFactory(
        trail_system=system,
        trail=whoopees[1],
        trail_distance_km=0.01,
        lat=whoopees[1].lat,
        lng=whoopees[1].lng,
        category="ice",
        email="third@example.test",
    )
    person = MembershipFactory(trail_system=system, user__uid=f"crew-{role}", role=role).user
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
    page = context.new_page()
    sign_in(page, live_server, person)
    page.goto(live_server.url + reverse("admin:trail_system_reports", args=[system.pk]))

    def check() -> None:
        cards = cards_of(page, "Whoopee")
        expect(cards).to_have_count(2)
        details = cards.locator(".report-twin").all_inner_texts()
        assert len(details) == 2 and len(set(details)) == 2, details
        grouped = page.locator(f"#report-{first.pk} .report-email")
        if role == "Administrator":
            expect(grouped).to_have_text("From: first@example.test, second@example.test")
        else:
            expect(grouped).to_have_count(0)
            expect(page.locator("#report-list").get_by_text("@example.test")).to_have_count(0)

    check()
    # The script draws the list again from its JSON, its times in the system's zone, named.
    expect(page.locator(f"#report-{first.pk} time")).to_contain_text(
        re.compile(r"\d{1,2}:\d\d [AP]M M[SD]T"), timeout=15_000
    )
    check()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    # Cards without a bullet hanging at the screen's edge; the e-mail switch a thumb's size.
    expect(page.locator(f"#report-{first.pk}")).to_have_css("list-style-type", "none")
    if role == "Administrator":
        switch = page.get_by_role("button", name="E-mail me each new report").bounding_box()
        assert switch["height"] >= 44
    page.locator(f"#report-{first.pk}").scroll_into_view_if_needed()
    save_screenshot(page, f"report-cards-twins-{role.lower()}-phone", full_page=False)
    context.close()
