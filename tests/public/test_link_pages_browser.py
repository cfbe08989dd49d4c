"""The links of our e-mails, opened from a real sent message in a phone's browser (issue 22):
the page shows one button, and only the button acts, so a mail scanner opening the link first
spends nothing. Each test's browser is a fresh one, without cookies. At 390 x 844; the
screenshots are in the riders' "Subscribing" page."""

import re

import pytest
from django.core import mail
from playwright.sync_api import expect

from tests.factories import SubscriberFactory, TrailSystemFactory, UpdateFactory
from updates import tasks
from updates.confirmations import request_subscription
from updates.models import Subscriber

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = {"width": 390, "height": 844}


@pytest.fixture
def live(live_server, settings, page):
    """The live server as the public base of every link, in a phone-sized browser."""
    settings.PUBLIC_BASE_URL = live_server.url
    page.set_viewport_size(PHONE)
    return live_server


def link_in(message, path: str) -> str:
    return re.search(rf"http://\S+/{path}/\S+", message.body).group(0)


def test_the_confirmation_emails_link_subscribes_only_by_its_button(live, page, screenshot):
    system = TrailSystemFactory(name="Pine Hill Nordic")
    request_subscription(system=system, email="rider@example.test")
    (message,) = mail.outbox
    assert "open this link within 24 hours and press the button on its page" in message.body

    page.goto(link_in(message, "subscribe/confirm"))

    expect(page.locator("h1")).to_have_text("Confirm your subscription")
    expect(
        page.get_by_text("get updates from Pine Hill Nordic at rider@example.test")
    ).to_be_visible()
    expect(page.get_by_role("button")).to_have_count(1)
    back = page.get_by_role("link", name="Back to the map")
    expect(back).to_have_attribute("href", f"/map/{system.pk}")
    screenshot("subscribe-confirm-link", docs=True)
    assert not Subscriber.objects.exists()

    page.get_by_role("button", name="Confirm my subscription").click()

    expect(page.locator("h1")).to_have_text("You are subscribed")
    screenshot("subscribe-confirm-link-done")
    assert Subscriber.objects.get().email == "rider@example.test"
    page.go_back()
    expect(page.locator("h1")).to_have_text("This confirmation has expired")


def test_an_update_emails_unsubscribe_link_unsubscribes_only_by_its_button(live, page, screenshot):
    system = TrailSystemFactory(name="Sentiers du Lac", language="fr")
    subscriber = SubscriberFactory(trail_system=system, email="skieur@example.test", phone="")
    tasks.notify_subscribers_on_commit(UpdateFactory(trail_system=system, notify=True).pk)
    (message,) = mail.outbox
    link = link_in(message, "unsubscribe")
    headers = message.message()  # as the mail server gets it
    assert headers["List-Unsubscribe"] == f"<{link}>"
    assert headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"

    page.goto(link)

    expect(page.locator("h1")).to_have_text("Se désabonner ?")
    expect(page.get_by_text("skieur@example.test reçoit les nouvelles")).to_be_visible()
    expect(page.get_by_role("button")).to_have_count(1)
    screenshot("unsubscribe-link", docs=True)
    subscriber.refresh_from_db()
    assert subscriber.unsubscribed_on is None

    page.get_by_role("button", name="Me désabonner").click()

    expect(page.locator("h1")).to_have_text("Vous êtes désabonné")
    expect(page.get_by_role("link", name="Retour à la carte")).to_be_visible()
    screenshot("unsubscribe-link-done")
    subscriber.refresh_from_db()
    assert subscriber.unsubscribed_on is not None
