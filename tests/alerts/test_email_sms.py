"""Following by e-mail or SMS: nothing goes to an address or number before its owner
confirms it (a link's button, a code typed on the alerts page), the budgets and number rules
of subscribers' sign-ups hold, and confirmed followers get their alerts through the
service's mail and SMS backends, coalesced as push alerts are."""

import re
from datetime import timedelta

import pytest
from django.core import mail
from django.utils import timezone
from twilio.request_validator import RequestValidator

from alerts.models import Follower
from alerts.tasks import run_all_due
from tests.factories import TrailFactory
from updates.notifications.sms_text import segments

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("sms_outbox")]
pytest_plugins = ["tests.updates.notify_fixtures"]

NUMBER = "+14065550123"


@pytest.fixture
def trail(system):
    return TrailFactory(trail_system=system, name="Upper Loop", status="Open")


@pytest.fixture
def follow(client, django_capture_on_commit_callbacks):
    """POST /alerts/<id> for an address, its confirmation sent as after a commit."""

    def post(system, channel: str, address: str, rules: list[dict], **more):
        body = {"channel": channel, "address": address, "rules": rules, **more}
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(f"/alerts/{system.pk}", body, content_type="application/json")

    return post


def close(manager, trail, run_at=None) -> None:
    manager.patch(f"/api/v1/trails/{trail.pk}", {"status": "Closed"}, format="json")
    run_all_due(run_at)


def confirm_link(message) -> str:
    return re.search(r"http://\S+/alerts/confirm/\S+", message.body).group(0)


def test_an_address_gets_alerts_once_its_link_is_confirmed(client, follow, system, manager, trail):
    answer = follow(
        system,
        "email",
        "Rider@Example.test",
        [{"trailId": trail.pk, "on": ["closes", "opens"]}],
    )
    assert answer.status_code == 201
    manage_url = answer.json()["manageUrl"]
    (confirmation,) = mail.outbox
    assert confirmation.to == ["Rider@example.test"]
    link = confirm_link(confirmation)

    close(manager, trail)
    assert len(mail.outbox) == 1  # nothing goes before the address is confirmed
    page = client.get(manage_url).content.decode()
    assert "We sent a link to Rider@example.test" in page

    assert "Start my alerts" in client.get(link).content.decode()
    assert not Follower.objects.get().confirmed_on  # opening the link confirms nothing
    confirmed = client.post(link)
    assert "your alerts by e-mail have started" in confirmed.content.decode()
    assert client.post(link).status_code == 404  # single use

    manager.patch(f"/api/v1/trails/{trail.pk}", {"status": "Open"}, format="json")
    run_all_due()
    alert = mail.outbox[-1]
    assert alert.to == ["Rider@example.test"]
    assert alert.subject == "Upper Loop: Open"
    assert f"/map/{system.pk}?trail={trail.pk}" in alert.body
    assert manage_url in alert.body


def test_a_number_gets_alerts_once_its_code_is_typed(
    client, follow, system, manager, trail, sms_outbox
):
    answer = follow(system, "sms", "+1 406 555 0123", [{"trailId": trail.pk, "on": ["closes"]}])
    assert answer.status_code == 201
    manage_url = answer.json()["manageUrl"]
    (code_message,) = sms_outbox
    assert code_message.to == NUMBER
    code = re.search(r"\b(\d{6})\b", code_message.body).group(1)
    page = client.get(manage_url).content.decode()
    assert 'name="code"' in page

    wrong = "000000" if code != "000000" else "111111"
    refused = client.post(f"{manage_url}/code", {"code": wrong}, content_type="application/json")
    assert (refused.status_code, refused.json()["error"]["code"]) == (400, "wrong_code")
    confirmed = client.post(f"{manage_url}/code", {"code": code})
    assert "your alerts by text message have started" in confirmed.content.decode()
    assert client.get(manage_url, HTTP_ACCEPT="application/json").json()["active"] is True

    close(manager, trail)
    alert = sms_outbox[-1]
    assert alert.to == NUMBER
    assert alert.body.startswith(f"{system.name}: Upper Loop: Closed")
    assert f"/map/{system.pk}?trail={trail.pk}" in alert.body
    assert segments(alert.body) <= 2


def test_a_code_is_refused_after_five_wrong_tries(client, follow, system, trail, sms_outbox):
    manage_url = follow(system, "sms", NUMBER, [{"trailId": None, "on": ["closes"]}]).json()[
        "manageUrl"
    ]
    code = re.search(r"\b(\d{6})\b", sms_outbox[0].body).group(1)
    wrong = "000000" if code != "000000" else "111111"
    for _ in range(5):
        client.post(f"{manage_url}/code", {"code": wrong}, content_type="application/json")
    answer = client.post(f"{manage_url}/code", {"code": code}, content_type="application/json")
    assert (answer.status_code, answer.json()["error"]["code"]) == (400, "expired")
    assert not Follower.objects.get().confirmed_on


@pytest.mark.parametrize(
    ("channel", "address"),
    [
        ("email", "not an address"),
        ("email", "rider@localhost"),
        ("sms", "4065550123"),
        ("sms", "+18005550123"),  # toll-free: no text messages
        ("sms", "+33612345678"),  # a French mobile, not one of the system's SMS countries
        ("sms", ""),
    ],
)
def test_bad_addresses_are_refused_and_nothing_is_sent(
    client, follow, system, trail, sms_outbox, channel, address
):
    answer = follow(system, channel, address, [{"trailId": trail.pk, "on": ["closes"]}])
    assert answer.status_code == 400
    assert answer.json()["error"]["field"] == "address"
    assert not Follower.objects.exists()
    assert not mail.outbox and not sms_outbox


def test_codes_past_the_days_sms_budget_are_refused(client, follow, system, trail, sms_outbox):
    system.sms_confirmations_per_day = 2
    system.save()
    rules = [{"trailId": trail.pk, "on": ["closes"]}]
    assert [follow(system, "sms", f"+1406555{n:04d}", rules).status_code for n in range(2)] == [
        201,
        201,
    ]

    refused = follow(system, "sms", "+14065550999", rules)

    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert refused.json()["error"]["code"] == "sms_paused"
    assert Follower.objects.count() == 2 and len(sms_outbox) == 2
    assert follow(system, "email", "rider@example.test", rules).status_code == 201


def test_signing_up_a_confirmed_address_again_changes_nothing_until_confirmed(
    client, follow, system, manager, trail
):
    other = TrailFactory(trail_system=system, name="Ridge", status="Open")
    follow(system, "email", "rider@example.test", [{"trailId": trail.pk, "on": ["closes"]}])
    client.post(confirm_link(mail.outbox[0]))
    follow(system, "email", "rider@example.test", [{"trailId": other.pk, "on": ["closes"]}])

    close(manager, trail)
    assert mail.outbox[-1].subject == "Upper Loop: Closed"  # the confirmed rules still hold

    client.post(confirm_link(mail.outbox[1]))
    assert Follower.objects.get().rules.get().trail_id == other.pk


def test_whoever_signed_an_address_up_before_its_owner_cannot_manage_its_alerts(
    client, follow, system, trail
):
    """Someone else may sign up a rider's address first; the rider's own sign-up and
    confirmation must not hand that person the page of the rider's alerts."""
    rules = [{"trailId": trail.pk, "on": ["closes"]}]
    strangers_url = follow(system, "email", "rider@example.test", rules).json()["manageUrl"]
    riders_url = follow(system, "email", "rider@example.test", rules).json()["manageUrl"]
    client.post(confirm_link(mail.outbox[-1]))

    assert client.get(riders_url, HTTP_ACCEPT="application/json").json()["active"] is True
    assert client.get(strangers_url, HTTP_ACCEPT="application/json").status_code == 404
    assert client.delete(strangers_url).status_code == 404
    assert Follower.objects.get().confirmed_on


def test_a_burst_by_email_is_two_messages(client, follow, system, manager, settings):
    settings.ALERTS_COALESCE_SECONDS = 60
    trails = [
        TrailFactory(trail_system=system, name=f"Trail {n:02}", status="Closed", order=n)
        for n in range(12)
    ]
    follow(
        system,
        "email",
        "rider@example.test",
        [{"trailId": t.pk, "on": ["opens"]} for t in trails],
    )
    client.post(confirm_link(mail.outbox[0]))
    mail.outbox.clear()
    start = timezone.now()
    for n, trail in enumerate(trails):
        manager.patch(f"/api/v1/trails/{trail.pk}", {"status": "Open"}, format="json")
        run_all_due(start + timedelta(seconds=n * 0.3))
    run_all_due(start + timedelta(seconds=61))

    assert [message.subject for message in mail.outbox] == ["Trail 00: Open", "11 more trails open"]


def test_unconfirmed_followers_are_dropped_after_their_time(
    client, follow, system, trail, sms_outbox
):
    follow(system, "sms", NUMBER, [{"trailId": trail.pk, "on": ["closes"]}])
    follow(system, "email", "rider@example.test", [{"trailId": trail.pk, "on": ["closes"]}])
    run_all_due(timezone.now() + timedelta(minutes=31))
    assert list(Follower.objects.values_list("channel", flat=True)) == ["email"]
    run_all_due(timezone.now() + timedelta(hours=25))
    assert not Follower.objects.exists()


def test_a_stop_reply_ends_the_numbers_alerts(client, follow, system, trail, sms_outbox, settings):
    manage_url = follow(system, "sms", NUMBER, [{"trailId": trail.pk, "on": ["closes"]}]).json()[
        "manageUrl"
    ]
    code = re.search(r"\b(\d{6})\b", sms_outbox[0].body).group(1)
    client.post(f"{manage_url}/code", {"code": code})
    settings.SMS_BACKEND = settings.TWILIO_SMS_BACKEND
    settings.TWILIO_AUTH_TOKEN = "twilio-auth-token"
    data = {"From": NUMBER, "Body": "STOP"}
    url = f"{settings.PUBLIC_BASE_URL}/sms/inbound"
    signature = RequestValidator(settings.TWILIO_AUTH_TOKEN).compute_signature(url, data)

    client.post("/sms/inbound", data, HTTP_X_TWILIO_SIGNATURE=signature)

    assert not Follower.objects.exists()
