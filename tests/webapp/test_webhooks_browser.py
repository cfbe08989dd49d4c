"""Webhooks in the web app, in a real browser: an Administrator registers an endpoint (the
test's own receiver), copies the secret shown once, sends a test event, reads the deliveries
and sends one again. A trustee of the system sees none of it."""

import pytest
from django.core.management import call_command
from django.db import transaction
from django.utils import timezone
from playwright.sync_api import expect

from core.actors import Actor, Via
from tests.factories import MembershipFactory, TrailFactory, TrailSystemFactory, UserFactory
from tests.webapp.test_browser import sign_in
from trails.services import change_trail
from webhooks.models import WebhookDelivery, WebhookEndpoint
from webhooks.services import create_endpoint

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_administrator_registers_a_webhook_tests_it_and_sends_a_delivery_again(
    live_server, page, screenshot, receiver
):
    target = receiver()
    owner = UserFactory(uid="owner", email="owner@example.test")
    system = TrailSystemFactory(name="Bear Creek Nordic", owner=owner)
    sign_in(page, live_server, owner)
    page.goto(f"{live_server.url}/admin/trails/trailsystem/{system.pk}/change/")
    page.click("#webhooks-link")
    page.click(".object-tools a.addlink")

    page.select_option("#id_trail_system", system.pk)
    page.fill("#id_url", target.url)
    page.check("input[name=events][value='trail.status_changed']")
    page.check("input[name=events][value='update.created']")
    screenshot("webapp-webhook-add", docs=True)
    page.click("input[name=_save]")

    secret = page.input_value("#webhook-secret")
    endpoint = WebhookEndpoint.objects.get()
    assert secret.startswith("whsec_") and secret == endpoint.secret
    assert endpoint.events == ["trail.status_changed", "update.created"]
    screenshot("webapp-webhook-secret", docs=True)
    page.click("text=Done")
    expect(page.locator("#deliveries-link")).to_be_visible()
    screenshot("webapp-webhook", docs=True)

    page.click("#send-test")
    expect(page.locator(".messagelist")).to_contain_text("A test event is on its way")
    assert target.received == []  # never inside the request, with no broker
    call_command("send_webhooks")  # what `make run` runs every second beside the server
    (request,) = target.wait_for(1, timeout=10)
    assert request.verified(secret)["type"] == "webhook.test"
    page.reload()
    row = page.locator("#result_list tbody tr").first
    expect(row).to_contain_text("webhook.test")
    expect(row).to_contain_text("Delivered")
    expect(row).to_contain_text("200")
    screenshot("webapp-webhook-deliveries", docs=True)

    page.check("#result_list tbody tr input.action-select")
    page.select_option("select[name=action]", "send_again")
    page.click("button[name=index]")
    expect(page.locator(".messagelist")).to_contain_text("Sending again: 1")
    call_command("send_webhooks")
    again = target.wait_for(2, timeout=10)
    assert again[1].webhook_id == request.webhook_id
    assert WebhookDelivery.objects.get().attempt_records.count() == 2

    page.click("#result_list tbody tr th a, #result_list tbody tr td a >> nth=0")
    expect(page.locator("table.webhook-attempts tr")).to_have_count(3)
    expect(page.locator("pre.webhook-payload")).to_contain_text('"type": "webhook.test"')
    screenshot("webapp-webhook-delivery", docs=True)


def test_a_paused_webhook_says_since_when_and_why_and_resumes_in_order(
    live_server, page, screenshot, receiver
):
    target = receiver()
    owner = UserFactory(uid="owner")
    system = TrailSystemFactory(name="Bear Creek Nordic", owner=owner)
    actor = Actor("owner", Via.WEB_APP)
    endpoint = create_endpoint(
        system=system, url=target.url, events=["trail.status_changed"], actor=actor
    ).endpoint
    trail = TrailFactory(trail_system=system, status="Open")
    for status in ("Caution", "Closed"):
        with transaction.atomic():
            change_trail(trail=trail, status=status, actor=actor)
    # As a day of failed attempts leaves it (webhooks.delivery.pause).
    WebhookEndpoint.objects.update(
        paused_on=timezone.now(),
        failing_since=timezone.now(),
        failures=17,
        pause_reason="no answer within 5 s",
    )
    WebhookDelivery.objects.update(next_attempt_on=None)
    sign_in(page, live_server, owner)

    page.goto(f"{live_server.url}/admin/webhooks/webhookendpoint/")
    row = page.locator("#result_list tbody tr").first
    expect(row).to_contain_text("Paused since")
    expect(row).to_contain_text("because 17 attempts in a row failed; the last: no answer")
    page.click(f"#result_list a[href*='{endpoint.pk}']")
    expect(page.locator("#paused-note")).to_contain_text("Paused since")
    screenshot("webapp-webhook-paused", docs=True)
    call_command("send_webhooks")
    assert target.received == []  # nothing while paused

    page.click("#resume")

    expect(page.locator(".messagelist")).to_contain_text("2 waiting events go now, in order")
    call_command("send_webhooks")
    ids = list(WebhookDelivery.objects.order_by("id").values_list("message_id", flat=True))
    assert target.ids() == ids
    expect(page.locator("#resume")).to_have_count(0)


def test_rotating_the_secret_shows_the_new_one_once(live_server, page, receiver):
    target = receiver()
    owner = UserFactory(uid="owner")
    system = TrailSystemFactory(owner=owner)
    sign_in(page, live_server, owner)
    page.goto(f"{live_server.url}/admin/webhooks/webhookendpoint/add/")
    page.select_option("#id_trail_system", system.pk)
    page.fill("#id_url", target.url)
    page.check("input[name=events][value='system.published']")
    page.click("input[name=_save]")
    first = page.input_value("#webhook-secret")
    page.click("text=Done")

    page.click("#rotate-link")
    page.click("#rotate")

    second = page.input_value("#webhook-secret")
    assert second != first and second == WebhookEndpoint.objects.get().secret


def test_a_private_address_is_refused_on_the_form(live_server, page, settings):
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = False
    owner = UserFactory(uid="owner")
    system = TrailSystemFactory(owner=owner)
    sign_in(page, live_server, owner)
    page.goto(f"{live_server.url}/admin/webhooks/webhookendpoint/add/")
    page.select_option("#id_trail_system", system.pk)
    page.fill("#id_url", "http://169.254.169.254/latest/meta-data/")
    page.check("input[name=events][value='update.created']")
    page.click("input[name=_save]")

    expect(page.locator(".errorlist")).to_contain_text("169.254.169.254 is a link-local address")
    assert not WebhookEndpoint.objects.exists()


def test_a_trustee_sees_no_webhooks(live_server, page):
    system = TrailSystemFactory()
    trustee = MembershipFactory(trail_system=system, user__uid="trustee", role="Trustee").user
    sign_in(page, live_server, trustee)

    page.goto(f"{live_server.url}/admin/trails/trailsystem/{system.pk}/overview/")
    expect(page.locator("#webhooks-link")).to_have_count(0)
    response = page.goto(f"{live_server.url}/admin/webhooks/webhookendpoint/")
    assert response.status == 403
