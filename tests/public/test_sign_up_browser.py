"""What a rider refused sees on a phone (issue 26): the map's form when sign-up by text is
paused for the day, and the answer to a number that may not get our texts. In Chromium at
390 x 844; the screenshots are in the "Security and abuse" page."""

import pytest
from playwright.sync_api import expect

from tests.factories import TrailSystemFactory
from updates import sms, sms_budget
from updates.models import PendingSubscription

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = {"width": 390, "height": 844}


@pytest.fixture
def outboxes(settings, tmp_path):
    settings.EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    settings.EMAIL_FILE_PATH = str(tmp_path / "mail")
    settings.SMS_BACKEND = "updates.sms.locmem.SmsBackend"
    sms.outbox.clear()
    yield
    sms.outbox.clear()


def test_a_paused_sign_up_by_text_says_so_and_takes_the_email(
    live_server, page, screenshot, outboxes
):
    system = TrailSystemFactory(name="Pine Hill Nordic", sms_confirmations_per_day=1)
    assert sms_budget.take(system)  # the day's one confirmation SMS has gone out
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server.url}/map/{system.pk}")

    form = page.locator("#subscribe")
    form.scroll_into_view_if_needed()
    expect(form.get_by_text("Sign-up by text message is paused for today.")).to_be_visible()
    expect(form.get_by_label("Mobile phone")).to_have_count(0)
    screenshot("subscribe-sms-paused", docs=True)

    form.get_by_label("E-mail").fill("rider@example.test")
    form.get_by_role("button", name="Subscribe").click()
    expect(page.locator("h1")).to_have_text("Check your messages")
    assert PendingSubscription.objects.get().email == "rider@example.test"
    assert sms.outbox == []


def test_a_number_that_cannot_get_our_texts_is_told_why(live_server, page, screenshot, outboxes):
    system = TrailSystemFactory(name="Pine Hill Nordic")
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server.url}/map/{system.pk}")

    page.get_by_label("Mobile phone").fill("+1 900 555 0123")
    page.get_by_role("button", name="Subscribe").click()

    expect(page.locator("h1")).to_have_text("Check the form")
    expect(page.get_by_role("alert")).to_contain_text(
        "+19005550123 cannot get our text messages: only mobile numbers can"
    )
    expect(page.get_by_label("Mobile phone")).to_have_value("+1 900 555 0123")
    screenshot("subscribe-refused-number", docs=True)
    assert sms.outbox == [] and not PendingSubscription.objects.exists()
