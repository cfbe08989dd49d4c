"""A Trustee who opens an Administrator's page (a link passed on, a bookmark) gets the web
app's own page saying so, phone-wide, with the way back; not the server's bare 403."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from tests.browser import save_screenshot
from tests.factories import MembershipFactory, TrailSystemFactory
from tests.webapp.test_browser import sign_in

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_trustee_on_an_administrators_page_gets_the_web_apps_403(live_server, browser):
    system = TrailSystemFactory(name="Bear Creek Nordic")
    trustee = MembershipFactory(trail_system=system, user__uid="trustee", role="Trustee").user
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
    page = context.new_page()
    sign_in(page, live_server, trustee)
    answer = page.goto(
        live_server.url + reverse("admin:trails_trailsystem_change", args=[system.pk])
    )
    assert answer.status == 403
    expect(page.locator("h1")).to_have_text("Not open to your role")
    expect(page.locator("#header")).to_be_visible()  # the web app's own look
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    save_screenshot(page, "webapp-403-trustee-phone", full_page=False)
    page.get_by_role("link", name="Back to your trail systems").click()
    expect(page.locator("#my-systems")).to_contain_text("Bear Creek Nordic")
    context.close()
