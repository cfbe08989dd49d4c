"""The web app in a real browser (Debian's chromium): the managers' daily tasks end to end.

Screenshots of the main pages go to test-output/screenshots/, and those the manager's guide
shows to docs/screenshots/ too with DOCS_SCREENSHOTS=1 (make screenshots).
"""

import json
import re
from urllib.parse import urlsplit

import pytest
from django.core import mail
from django.core.files.storage import default_storage
from playwright.sync_api import expect

from apikeys.models import ApiKey
from apikeys.tokens import mint_emulator_token
from core.actors import Actor, Via
from tests.factories import (
    MembershipFactory,
    SubscriberFactory,
    TrailActivityFactory,
    TrailFactory,
    TrailSystemFactory,
    UserFactory,
)
from trails.models import Trail
from trails.trash import trash_trail
from updates.models import Update
from webapp.signin import signin_link

pytestmark = pytest.mark.django_db(transaction=True)


def local(live_server, link: str) -> str:
    """A link built on PUBLIC_BASE_URL, on the live server instead."""
    parts = urlsplit(link)
    return f"{live_server.url}{parts.path}?{parts.query}"


def sign_in(page, live_server, user) -> None:
    page.goto(local(live_server, signin_link(user)))
    page.click("#use-link-form input[type=submit]")
    page.wait_for_selector("#my-systems, #content-main")


@pytest.fixture
def trustee_world():
    system = TrailSystemFactory(name="Bear Creek Nordic")
    trustee = MembershipFactory(trail_system=system, user__uid="trustee", role="Trustee").user
    trails = [
        TrailActivityFactory(
            trail__trail_system=system, trail__name=name, value="nordic-classic"
        ).trail
        for name in ("Aspen Loop", "Beaver Run", "Cedar Climb", "Moose Meadow")
    ]
    TrailFactory(name="Somebody Else's Trail", trail_system=TrailSystemFactory(name="Elsewhere"))
    return system, trustee, trails


def test_sign_in_with_an_emailed_link(live_server, page, screenshot, mailoutbox):
    system = TrailSystemFactory(name="Bear Creek Nordic", owner=UserFactory(email="o@example.test"))
    page.goto(f"{live_server.url}/admin/")
    screenshot("webapp-login")
    page.fill("#link-email", "o@example.test")
    page.click("#link-form input[type=submit]")
    page.wait_for_selector(".messagelist")
    assert "a sign-in link is on its way" in page.inner_text(".messagelist")

    link = re.search(r"http://\S+", mail.outbox[0].body).group(0)
    page.goto(local(live_server, link))
    page.click("#use-link-form input[type=submit]")
    page.wait_for_selector("#my-systems")
    assert system.name in page.inner_text("#my-systems")
    screenshot("webapp-index", docs=True)


def test_sign_in_with_an_id_token(live_server, page, settings):
    # The page's Firebase script posts the ID token it gets; here the browser posts one made
    # for the emulator, exactly as that script would.
    settings.FIREBASE_WEB_API_KEY = "demo-key"
    settings.FIREBASE_AUTH_DOMAIN = "demo-trails.firebaseapp.com"
    system = TrailSystemFactory(name="Bear Creek Nordic")
    page.goto(f"{live_server.url}/admin/login/?next=/admin/trails/trail/")
    assert page.is_visible("#firebase-form")
    token = mint_emulator_token(system.owner.uid, system.owner.email)
    page.eval_on_selector(
        "#token-form",
        "(form, token) => { form.elements.id_token.value = token; form.submit(); }",
        token,
    )
    page.wait_for_url(lambda url: urlsplit(url).path == "/admin/trails/trail/")
    assert "Select trail to change" in page.inner_text("#content")


def test_a_bad_token_shows_the_login_page_with_an_error(live_server, page, settings):
    settings.FIREBASE_WEB_API_KEY = "demo-key"
    settings.FIREBASE_AUTH_DOMAIN = "demo-trails.firebaseapp.com"
    page.goto(f"{live_server.url}/admin/login/")
    page.eval_on_selector(
        "#token-form", "form => { form.elements.id_token.value = 'bad'; form.submit(); }"
    )
    page.wait_for_selector("#signin-error")
    assert "invalid or has expired" in page.inner_text("#signin-error")


def test_a_trustee_bulk_closes_three_trails_and_the_published_file_shows_it(
    live_server, page, screenshot, trustee_world
):
    system, trustee, trails = trustee_world
    sign_in(page, live_server, trustee)
    page.goto(f"{live_server.url}/admin/trails/trail/")
    listed = page.inner_text("#result_list")
    assert "Aspen Loop" in listed and "Somebody Else's Trail" not in listed
    assert "Elsewhere" not in page.content()

    for trail in trails[:3]:
        page.check(f"input[name=_selected_action][value='{trail.pk}']")
    page.select_option("select[name=action]", "set_status_closed")
    page.click("button[name=index]")
    page.wait_for_selector(".messagelist")
    assert "3 trails set to Closed." in page.inner_text(".messagelist")
    screenshot("webapp-trails", docs=True)

    system.refresh_from_db()
    published = json.loads(default_storage.open(system.geo_json_path).read())
    statuses = {
        feature["properties"]["name"]: feature["properties"]["status"]
        for feature in published["features"]
        if feature["properties"].get("name") in {t.name for t in trails}
    }
    assert statuses == {
        "Aspen Loop": "Closed",
        "Beaver Run": "Closed",
        "Cedar Climb": "Closed",
        "Moose Meadow": "Open",
    }


def test_a_trustee_adds_an_activity_and_sees_the_map(live_server, page, screenshot, trustee_world):
    _, trustee, trails = trustee_world
    trail = trails[0]
    sign_in(page, live_server, trustee)
    page.goto(f"{live_server.url}/admin/trails/trail/{trail.pk}/change/")
    page.wait_for_selector(".trail-map .leaflet-overlay-pane path")
    page.click("#activities-group .add-row a")
    page.select_option("select[name='activities-1-value']", "snowshoeing")
    screenshot("webapp-trail", docs=True)
    page.click("input[name=_save]")
    page.wait_for_selector(".messagelist")
    assert sorted(trail.activities.values_list("value", flat=True)) == [
        "nordic-classic",
        "snowshoeing",
    ]


def test_a_trustee_restores_a_trashed_trail(live_server, page, screenshot, trustee_world):
    _, trustee, trails = trustee_world
    trash_trail(trail=trails[3], actor=Actor(trustee.pk, Via.WEB_APP))
    sign_in(page, live_server, trustee)
    page.goto(f"{live_server.url}/admin/trails/trashedtrail/")
    page.check(f"input[name=_selected_action][value='{trails[3].pk}']")
    page.select_option("select[name=action]", "restore")
    screenshot("webapp-trash", docs=True)
    page.click("button[name=index]")
    page.wait_for_selector(".messagelist")
    assert Trail.objects.filter(pk=trails[3].pk).exists()


def test_an_administrator_invites_a_trustee_who_then_signs_in(
    live_server, page, screenshot, browser, mailoutbox
):
    system = TrailSystemFactory(name="Bear Creek Nordic")
    sign_in(page, live_server, system.owner)
    page.goto(f"{live_server.url}/admin/trails/trailsystem/{system.pk}/overview/")
    assert page.is_visible(".map-qr svg")
    screenshot("webapp-overview")
    page.goto(f"{live_server.url}/admin/trails/trailsystem/{system.pk}/change/")
    page.click("#invite-link")
    page.fill("#id_email", "new.groomer@example.test")
    page.select_option("#id_role", "Trustee")
    screenshot("webapp-invite", docs=True)
    page.click("#invite-form input[type=submit]")
    page.wait_for_selector(".messagelist")

    link = re.search(r"http://\S+", mail.outbox[0].body).group(0)
    invited = browser.new_context().new_page()
    invited.goto(local(live_server, link))
    invited.click("#use-link-form input[type=submit]")
    invited.wait_for_selector("#my-systems")
    assert "Bear Creek Nordic" in invited.inner_text("#my-systems")
    invited.context.close()


def test_a_key_is_created_and_its_plaintext_shown_once(live_server, page, screenshot):
    system = TrailSystemFactory(name="Bear Creek Nordic")
    sign_in(page, live_server, system.owner)
    page.goto(f"{live_server.url}/admin/apikeys/apikey/add/")
    page.fill("#id_name", "Grooming tablet")
    page.select_option("#id_access", "read")
    page.select_option("#id_trail_system_ids", system.pk)
    page.select_option("#id_expires_in_days", "90")
    page.click("input[name=_save]")
    plaintext = page.input_value("#new-key")
    screenshot("webapp-key-created", docs=True)

    key = ApiKey.objects.get(name="Grooming tablet")
    assert plaintext.startswith(key.prefix)
    assert (key.scopes, key.trail_system_ids) == (["read"], [system.pk])
    page.goto(f"{live_server.url}/admin/apikeys/apikey/")
    assert plaintext not in page.content()
    page.goto(f"{live_server.url}/admin/apikeys/apikey/{key.pk}/change/")
    assert plaintext not in page.content()


def test_a_trustee_posts_a_notice_and_confirms_who_gets_it(
    live_server, page, screenshot, trustee_world, mailoutbox
):
    system, trustee, _ = trustee_world
    SubscriberFactory.create_batch(3, trail_system=system)
    sign_in(page, live_server, trustee)
    page.goto(f"{live_server.url}/admin/updates/update/add/?trail_system={system.pk}")
    page.select_option("#id_type", "notice")
    page.fill("#id_expiration_date_0", "2099-01-01")
    page.fill("#id_expiration_date_1", "12:00:00")
    page.fill("#id_description", "Beaver Run closed for logging until Friday.")
    page.select_option("#id_severity", "warning")
    page.check("#id_notify")
    page.click("input[name=_save]")

    expect(page.locator("#notify-question")).to_contain_text("e-mailed or texted to 3 subscribers")
    expect(page.locator(".errornote")).to_have_count(0)
    assert not Update.objects.exists()
    screenshot("webapp-update-notify", docs=True)
    page.click("#send-update")
    page.wait_for_selector(".messagelist")
    assert Update.objects.get().notify is True
    assert len(mailoutbox) == 3
