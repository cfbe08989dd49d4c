"""Following from the map's Alerts panel by e-mail or text message, on a phone (Chromium at
390 x 844), where a browser without installed web app gets no push (an iPhone's Safari): the
rider picks the channel, types an address or a number, and confirms without leaving the map
(a link by e-mail, a code typed in the panel). A refusal is said under the field, and what
was typed stays, offline too. The service's test backends stand in for mail and SMS."""

import re

import pytest
from django.core import mail
from django.db import transaction
from playwright.sync_api import Page, expect

from alerts.models import Follower
from core.compiles import request_compile
from tests.browser import save_screenshot
from tests.factories import TrailFactory, TrailSystemFactory

pytestmark = pytest.mark.django_db(transaction=True)
pytest_plugins = ["tests.updates.notify_fixtures"]

PHONE = {"width": 390, "height": 844}
DESK = {"width": 1280, "height": 900}


@pytest.fixture
def pine_hill(live_server, settings):
    settings.PUBLIC_BASE_URL = live_server.url
    system = TrailSystemFactory(name="Pine Hill Nordic", time_zone="America/Denver")
    trail = TrailFactory(trail_system=system, name="Ridge <b>Run</b>", status="Open", order=1)
    TrailFactory(trail_system=system, name="Meadow Loop", status="Open", order=2)
    with transaction.atomic():
        request_compile(system, reason="test")
    return system, trail


def phone_page(browser, live_server) -> Page:
    context = browser.new_context(viewport=PHONE, locale="en-US", has_touch=True)
    context.set_default_timeout(15_000)
    return context.new_page()


def test_a_rider_follows_a_trail_by_e_mail_and_confirms_by_the_link(
    browser, live_server, pine_hill
):
    system, trail = pine_hill
    page = phone_page(browser, live_server)
    page.goto(f"{live_server.url}/map/{system.pk}?trail={trail.pk}")
    panel = page.locator("#alerts-panel")
    panel.get_by_role("radio", name="E-mail").check()
    page.locator(f'.follow-button[data-trail-id="{trail.pk}"]').click()
    expect(page.locator(".follow-message")).to_contain_text("send them from the Alerts panel")
    expect(panel.locator(".alerts-rule strong")).to_have_text("Ridge <b>Run</b>")
    panel.get_by_label("Quiet from").fill("21:30")
    panel.get_by_label("until").fill("06:00")
    panel.get_by_label("until").press("Tab")
    panel.get_by_label("At most one alert a day per rule").check()

    address = panel.get_by_label("Your e-mail address")
    address.fill("rider@localhost")
    panel.get_by_role("button", name="E-mail me a link to confirm").click()
    expect(panel.locator("#alerts-address-error")).to_contain_text(
        "We cannot write to rider@localhost"
    )
    expect(address).to_have_attribute("aria-invalid", "true")
    expect(address).to_have_value("rider@localhost")
    address.scroll_into_view_if_needed()
    save_screenshot(page, "alerts-email-refused", full_page=False)

    address.fill("rider@example.com")
    page.context.set_offline(True)
    panel.get_by_role("button", name="E-mail me a link to confirm").click()
    expect(panel.locator("#alerts-address-error")).to_contain_text("Not sent: this device is")
    expect(address).to_have_value("rider@example.com")
    page.context.set_offline(False)
    assert not Follower.objects.exists() and mail.outbox == []

    panel.get_by_role("button", name="E-mail me a link to confirm").click()
    expect(panel.locator(".alerts-sent")).to_contain_text(
        "Check your inbox to confirm: we sent a link to rider@example.com."
    )
    panel.locator(".alerts-sent").scroll_into_view_if_needed()
    save_screenshot(page, "alerts-email-sent", docs=True, full_page=False)
    follower = Follower.objects.get()
    assert (follower.channel, follower.confirmed_on) == ("email", None)
    assert (f"{follower.quiet_from:%H:%M}", f"{follower.quiet_to:%H:%M}") == ("21:30", "06:00")
    assert follower.once_per_day is True
    (rule,) = follower.rules.all()
    assert (rule.trail_id, sorted(rule.on)) == (trail.pk, ["closes", "opens"])

    (confirmation,) = mail.outbox
    link = re.search(r"http://\S+/alerts/confirm/\S+", confirmation.body).group(0)
    page.goto(link)
    page.get_by_role("button", name="Start my alerts").click()
    expect(page.get_by_role("status")).to_contain_text("your alerts by e-mail have started")
    follower.refresh_from_db()
    assert follower.confirmed_on is not None

    page.set_viewport_size(DESK)
    page.goto(f"{live_server.url}/map/{system.pk}")
    expect(panel.locator(".alerts-rule strong")).to_have_text("Ridge <b>Run</b>")
    expect(panel.locator(".alerts-sent")).to_contain_text(
        "Confirmed: your alerts by e-mail have started."
    )
    save_screenshot(page, "alerts-email-confirmed-desk", full_page=False)


def test_a_rider_follows_by_text_message_and_types_the_code_on_the_map(
    browser, live_server, pine_hill, sms_outbox
):
    system, _ = pine_hill
    page = phone_page(browser, live_server)
    page.goto(f"{live_server.url}/map/{system.pk}")
    panel = page.locator("#alerts-panel")
    panel.get_by_role("radio", name="Text message").check()
    panel.get_by_role("button", name="Follow the whole system").click()
    number = panel.get_by_label("Mobile phone")

    panel.get_by_role("button", name="Text me a code").click()
    expect(panel.locator("#alerts-address-error")).to_have_text("Type your mobile phone number.")
    number.fill("+1 900 555 0123")
    panel.get_by_role("button", name="Text me a code").click()
    expect(panel.locator("#alerts-address-error")).to_contain_text(
        "+19005550123 cannot get our text messages"
    )
    expect(number).to_have_value("+1 900 555 0123")
    assert sms_outbox == []

    number.fill("+1 406 555 0123")
    panel.get_by_role("button", name="Text me a code").click()
    code_field = panel.get_by_label("Code", exact=True)
    expect(code_field).to_be_focused()
    expect(panel.locator(".alerts-sent")).to_contain_text("We sent a 6-digit code to +1 406")
    (message,) = sms_outbox
    code = re.search(r"\b(\d{6})\b", message.body).group(1)

    code_field.fill("000000" if code != "000000" else "111111")
    panel.get_by_role("button", name="Confirm").click()
    expect(panel.locator("#alerts-code-error")).to_have_text(
        "That code is not right; check the text message and try again."
    )
    panel.locator(".alerts-sent").scroll_into_view_if_needed()
    save_screenshot(page, "alerts-sms-code", docs=True, full_page=False)
    code_field.fill(code)
    panel.get_by_role("button", name="Confirm").click()
    expect(panel.locator(".alerts-sent")).to_contain_text(
        "Confirmed: your alerts by text message have started."
    )
    follower = Follower.objects.get()
    assert (follower.channel, follower.address) == ("sms", "+14065550123")
    assert follower.confirmed_on is not None
    assert [rule.trail_id for rule in follower.rules.all()] == [None]


def test_text_messages_are_not_offered_where_the_system_takes_no_numbers(
    browser, live_server, settings
):
    """Nor in English where the system speaks French; past the bounds of sign-ups, the rider
    is told when to try again."""
    settings.ALERTS_SIGNUPS_PER_CLIENT_MINUTE = 0
    system = TrailSystemFactory(name="Mont Sainte-Anne", language="fr", sms_confirmations_per_day=0)
    page = phone_page(browser, live_server)
    page.goto(f"{live_server.url}/map/{system.pk}")
    panel = page.locator("#alerts-panel")
    expect(panel.locator(".alerts-channel legend")).to_have_text("Comment vous prévenir")
    choices = panel.locator(".alerts-channel input")
    expect(choices).to_have_count(2)
    assert choices.evaluate_all("radios => radios.map(r => r.value)") == ["push", "email"]
    panel.get_by_role("radio", name="Courriel").check()
    panel.get_by_role("button", name="Suivre tout le réseau").click()
    panel.get_by_label("Votre adresse courriel").fill("rider@example.com")
    panel.get_by_role("button", name="M'envoyer un lien de confirmation par courriel").click()
    expect(panel.locator("#alerts-address-error")).to_contain_text(
        re.compile(r"^Non envoyé : trop d'inscriptions en ce moment\. .* réessayez après \d")
    )
    expect(panel.get_by_label("Votre adresse courriel")).to_have_value("rider@example.com")
    assert not Follower.objects.exists()


def test_the_panel_s_choices_take_a_thumb_and_the_grown_popup_stays_whole(
    browser, live_server, pine_hill
):
    system, trail = pine_hill
    page = phone_page(browser, live_server)
    page.goto(f"{live_server.url}/map/{system.pk}?trail={trail.pk}")
    panel = page.locator("#alerts-panel")
    panel.get_by_role("radio", name="E-mail").check()
    popup = page.locator(".leaflet-popup")
    expect(popup).to_be_visible()
    page.locator("#map").scroll_into_view_if_needed()
    page.wait_for_timeout(800)  # the opening's fit and pan are over
    # The popup's top just inside the map, as after a rider's pan: the message grows it upwards.
    page.evaluate(
        """() => {
          const top = document.querySelector('.leaflet-popup').getBoundingClientRect().top;
          const frame = trailMap.map.getContainer().getBoundingClientRect().top;
          trailMap.map.panBy([0, top - frame - 2], { animate: false });
        }"""
    )
    page.locator(f'.follow-button[data-trail-id="{trail.pk}"]').click()
    expect(page.locator(".follow-message")).to_contain_text("send them from the Alerts panel")
    frame = page.locator("#map").bounding_box()
    box = popup.bounding_box()
    assert box["y"] >= frame["y"], (box, frame)
    save_screenshot(page, "alerts-follow-popup-grown", full_page=False)

    panel.scroll_into_view_if_needed()
    choices = panel.locator(".alerts-kinds label, .alerts-once, .alerts-channel label")
    assert choices.count() >= 6
    for choice in choices.all():
        assert choice.bounding_box()["height"] >= 44, choice.inner_text()
    assert panel.locator(".alerts-kinds input").first.bounding_box()["width"] >= 22
    panel.locator(".alerts-kinds").first.scroll_into_view_if_needed()
    save_screenshot(page, "alerts-panel-choices", full_page=False)
