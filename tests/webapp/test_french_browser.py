"""The web app in French, in Chromium with a French browser: the main pages show none of our
English words. Screenshots: test-output/screenshots/webapp-fr-*.png."""

import re

import pytest

from apikeys.services import invite_member
from core.actors import Actor, Via
from tests.browser import SCREENSHOT_DIR
from tests.factories import (
    MembershipFactory,
    PointFactory,
    SubscriberFactory,
    TrailActivityFactory,
    TrailSystemFactory,
    UpdateFactory,
    UserFactory,
    create_api_key,
)
from tests.webapp.test_browser import local
from webapp.signin import signin_link
from webhooks.services import create_endpoint, send_test_event

pytestmark = pytest.mark.django_db(transaction=True)

# Words and phrases of ours that a French page must not show (Django's own admin is translated
# by Django). Matched as whole words, case-sensitively, in the page's visible text.
ENGLISH = [
    "Trail system", "Trail systems", "Trails", "Trail activities", "Updates",
    "Subscribers", "Members", "Overview", "Grooming", "Open", "Caution", "Closed", "Status",
    "Difficulty", "Activities", "Activity", "Category", "Categories", "Classic skiing",
    "Snowshoeing", "Administrator", "Trustee", "Notify subscribers", "Yes, save and send it",
    "Set status", "Move selected to the trash", "Restore selected", "Api keys", "API keys",
    "Read and write", "Read only", "Never", "days", "year", "Expires", "Revoked", "Name",
    "Severity", "Notice", "Wait time", "Web cam", "Dining options", "Published",
    "Last compile", "Public map", "published file", "Invite", "Role", "Owner", "History",
    "Your trail systems", "Trail status", "Sign in", "E-mail me", "Map", "Geometry", "Length",
    "Created", "Updated", "by", "Search", "Filter", "the", "and", "of", "to", "with", "your",
]  # fmt: skip
ENGLISH_WORDS = re.compile(r"\b(" + "|".join(re.escape(w) for w in ENGLISH) + r")\b")
# Names of the test's own data (trail, system, e-mail addresses) are not ours to translate.
DATA = ["Bear Creek Nordic", "Aspen Loop", "Warming Hut", "Lift 2 closed for wind."]


def english_left(text: str) -> list[str]:
    for name in DATA:
        text = text.replace(name, "")
    return sorted(set(ENGLISH_WORDS.findall(text)))


@pytest.fixture
def french_page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 800}, locale="fr-FR")
    context.set_default_timeout(15_000)
    yield context.new_page()
    context.close()


@pytest.fixture
def world():
    owner = UserFactory(uid="owner", email="owner@example.test")
    system = TrailSystemFactory(name="Bear Creek Nordic", owner=owner)
    trail = TrailActivityFactory(
        trail__trail_system=system, trail__name="Aspen Loop", value="nordic-classic"
    ).trail
    point = PointFactory(
        trail_system=system, name="Warming Hut", wait_time=10, dining_options=["coffee"]
    )
    MembershipFactory(trail_system=system, user__uid="trustee", role="Trustee")
    invite_member(
        system=system,
        email="groomer@example.test",
        role="Groomer",
        actor=Actor("owner", Via.WEB_APP),
    )
    UpdateFactory(trail_system=system, description="Lift 2 closed for wind.")
    SubscriberFactory.create_batch(2, trail_system=system)
    create_api_key(owner, name="Tablet")
    webhook = create_endpoint(
        system=system,
        url="https://hooks.example.org/x",
        events=["trail.status_changed"],
        actor=Actor("owner", Via.WEB_APP),
    ).endpoint
    send_test_event(endpoint=webhook, actor=Actor("owner", Via.WEB_APP))
    return system, trail, point


def visit(page, url: str, name: str, screenshot_dir) -> list[str]:
    page.goto(url)
    return look(page, name, screenshot_dir)


def look(page, name: str, screenshot_dir) -> list[str]:
    screenshot_dir.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(screenshot_dir / f"webapp-fr-{name}.png"), full_page=True)
    return english_left(page.inner_text("body"))


def test_the_main_pages_in_french_show_no_english_of_ours(live_server, french_page, world):
    system, trail, point = world
    page, base = french_page, live_server.url
    found: dict[str, list[str]] = {}
    found["login"] = visit(page, f"{base}/admin/login/", "login", SCREENSHOT_DIR)
    page.goto(local(live_server, signin_link(system.owner)))
    found["use-link"] = look(page, "use-link", SCREENSHOT_DIR)
    page.click("#use-link-form input[type=submit]")
    page.wait_for_selector("#my-systems")
    pages = {
        "index": "/admin/",
        "trails": "/admin/trails/trail/",
        "trail": f"/admin/trails/trail/{trail.pk}/change/",
        "points": "/admin/trails/point/",
        "point": f"/admin/trails/point/{point.pk}/change/",
        "system": f"/admin/trails/trailsystem/{system.pk}/change/",
        "invite": f"/admin/trails/trailsystem/{system.pk}/invite/",
        "overview": f"/admin/trails/trailsystem/{system.pk}/overview/",
        "grooming": f"/admin/trails/trailsystem/{system.pk}/grooming/",
        "updates": "/admin/updates/update/",
        "subscribers": "/admin/updates/subscriber/",
        "trashed-trails": "/admin/trails/trashedtrail/",
        "keys": "/admin/apikeys/apikey/",
        "key-add": "/admin/apikeys/apikey/add/",
        "webhooks": "/admin/webhooks/webhookendpoint/",
        "webhook-add": "/admin/webhooks/webhookendpoint/add/",
        "webhook-deliveries": "/admin/webhooks/webhookdelivery/",
    }
    for name, path in pages.items():
        found[name] = visit(page, f"{base}{path}", name, SCREENSHOT_DIR)

    page.goto(f"{base}/admin/updates/update/add/")
    page.select_option("#id_trail_system", system.pk)
    page.select_option("#id_type", "notice")
    page.fill("#id_expiration_date_0", "2099-01-01")
    page.fill("#id_expiration_date_1", "12:00:00")
    page.fill("#id_description", "Lift 2 closed for wind.")
    page.check("#id_notify")
    page.click("input[name=_save]")
    page.wait_for_selector("#notify-question")
    found["update-confirm"] = look(page, "update-confirm", SCREENSHOT_DIR)
    assert "2 abonnés" in page.inner_text("body")

    assert {name: words for name, words in found.items() if words} == {}
