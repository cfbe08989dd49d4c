"""Subscribing from the map: nothing is subscribed until the contact is confirmed."""

import re
from datetime import timedelta
from urllib.parse import urlparse

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone
from twilio.request_validator import RequestValidator

from tests.factories import SubscriberFactory, TrailSystemFactory
from updates.models import PendingSubscription, Subscriber
from updates.tasks import purge_expired_confirmations

pytestmark = pytest.mark.django_db
pytest_plugins = ["tests.updates.notify_fixtures"]


@pytest.fixture
def system():
    """On the border: numbers of both countries may sign up by text."""
    return TrailSystemFactory(name="Pine Hill Nordic", language="en", sms_countries=["US", "CA"])


@pytest.fixture
def subscribe(client, django_capture_on_commit_callbacks):
    """Post the map's form; the confirmation messages go out after the commit."""

    def post(system, *, email="", phone="", address="203.0.113.5"):
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(
                f"/subscribe/{system.pk}", {"email": email, "phone": phone}, REMOTE_ADDR=address
            )

    return post


def confirmation_link() -> str:
    (link,) = re.findall(r"http://\S+/subscribe/confirm/\S+", mail.outbox[-1].body)
    return urlparse(link).path


def sent_code(sms_outbox) -> str:
    return re.search(r"\b(\d{6})\b", sms_outbox[-1].body).group(1)


def another_code(code: str) -> str:
    return f"{(int(code) + 1) % 1_000_000:06d}"


def pending_id(response) -> str:
    return re.search(r'name="pending" value="([^"]+)"', response.content.decode()).group(1)


def test_an_email_is_subscribed_only_once_its_links_button_is_pressed(client, subscribe, system):
    response = subscribe(system, email="Rider@Example.TEST")

    assert response.status_code == 200
    assert "Check your messages" in response.content.decode()
    assert not Subscriber.objects.exists()
    assert mail.outbox[0].to == ["Rider@example.test"]
    assert "Pine Hill Nordic" in mail.outbox[0].subject

    for _ in range(3):  # a mail scanner, a link preview, then the person
        opened = client.get(confirmation_link())
    assert opened.status_code == 200
    assert "Confirm your subscription" in opened.content.decode()
    assert opened.content.decode().count("<button") == 1
    assert client.head(confirmation_link()).status_code == 200
    assert not Subscriber.objects.exists()

    confirmed = Client(enforce_csrf_checks=True).post(confirmation_link())

    assert confirmed.status_code == 200
    assert "You are subscribed" in confirmed.content.decode()
    subscriber = Subscriber.objects.get()
    assert (subscriber.trail_system, subscriber.email) == (system, "Rider@example.test")


def test_the_link_works_once(client, subscribe, system):
    subscribe(system, email="rider@example.test")
    link = confirmation_link()
    client.post(link)

    again = client.post(link)
    opened_again = client.get(link)

    assert again.status_code == opened_again.status_code == 410
    assert "expired" in again.content.decode()
    assert "<button" not in opened_again.content.decode()
    assert "Back to the map" in opened_again.content.decode()
    assert Subscriber.objects.count() == 1


def test_the_link_expires_after_24_hours(client, subscribe, system):
    subscribe(system, email="rider@example.test")
    PendingSubscription.objects.update(expires_on=timezone.now() - timedelta(seconds=1))

    opened = client.get(confirmation_link())
    pressed = client.post(confirmation_link())

    assert opened.status_code == pressed.status_code == 410
    assert "<button" not in opened.content.decode()
    assert not Subscriber.objects.exists()


@pytest.mark.parametrize("method", ["get", "post"])
def test_an_unknown_link_is_expired_not_an_error(client, method):
    response = getattr(client, method)("/subscribe/confirm/not-a-token")

    assert response.status_code == 410
    assert "Subscribe again" in response.content.decode()


def test_a_phone_is_subscribed_by_the_code_sent_by_sms(client, subscribe, system, sms_outbox):
    response = subscribe(system, phone="+1 406 555 0123")
    assert 'name="code"' in response.content.decode()
    assert sms_outbox[0].to == "+14065550123"
    assert not Subscriber.objects.exists()

    wrong = client.post(
        f"/subscribe/{system.pk}/code",
        {
            "pending": pending_id(response),
            "code": another_code(sent_code(sms_outbox)),
        },
    )
    assert wrong.status_code == 400
    assert "not right" in wrong.content.decode()
    assert not Subscriber.objects.exists()

    right = client.post(
        f"/subscribe/{system.pk}/code",
        {"pending": pending_id(response), "code": sent_code(sms_outbox)},
    )
    assert right.status_code == 200
    assert Subscriber.objects.get().phone == "+14065550123"


def test_five_wrong_codes_end_the_confirmation(client, subscribe, system, sms_outbox):
    response = subscribe(system, phone="+14065550123")
    code = sent_code(sms_outbox)
    wrong = another_code(code)
    for _ in range(5):
        client.post(
            f"/subscribe/{system.pk}/code", {"pending": pending_id(response), "code": wrong}
        )

    late = client.post(
        f"/subscribe/{system.pk}/code", {"pending": pending_id(response), "code": code}
    )

    assert late.status_code == 410
    assert not Subscriber.objects.exists()


def test_email_and_phone_confirmed_make_one_subscriber(client, subscribe, system, sms_outbox):
    response = subscribe(system, email="rider@example.test", phone="+14065550123")
    client.post(confirmation_link())
    client.post(
        f"/subscribe/{system.pk}/code",
        {"pending": pending_id(response), "code": sent_code(sms_outbox)},
    )

    subscriber = Subscriber.objects.get()
    assert (subscriber.email, subscriber.phone) == ("rider@example.test", "+14065550123")


def test_the_answer_does_not_tell_whether_a_contact_is_subscribed(client, subscribe, system):
    SubscriberFactory(trail_system=system, email="known@example.test")

    known = subscribe(system, email="known@example.test")
    new = subscribe(system, email="new@example.test")

    def shown(response):
        html = re.sub(r'value="[^"]*"', "", response.content.decode())
        return html.replace("known@example.test", "X").replace("new@example.test", "X")

    assert known.status_code == new.status_code == 200
    assert shown(known) == shown(new)
    assert len(mail.outbox) == 2
    # Confirming an address already subscribed keeps the one subscription.
    mail.outbox[:] = mail.outbox[:1]
    assert client.post(confirmation_link()).status_code == 200
    assert Subscriber.objects.filter(email="known@example.test").count() == 1


def test_bad_input_is_refused_clearly_and_nothing_is_sent(client, subscribe, system):
    empty = subscribe(system)
    bad_phone = subscribe(system, phone="555-0123")

    assert empty.status_code == bad_phone.status_code == 400
    assert "555-0123 is not a phone number we recognise" in bad_phone.content.decode()
    assert mail.outbox == []
    assert not PendingSubscription.objects.exists()


def test_sign_ups_are_limited_per_contact(client, subscribe, system):
    answers = [
        subscribe(system, email="rider@example.test", address=f"198.51.100.{n}") for n in range(4)
    ]

    assert [a.status_code for a in answers] == [200, 200, 200, 429]
    assert len(mail.outbox) == 3


def test_sign_ups_are_limited_per_client_address(client, subscribe, system):
    answers = [subscribe(system, email=f"rider{n}@example.test") for n in range(11)]

    assert [a.status_code for a in answers] == [200] * 10 + [429]
    assert answers[-1]["Retry-After"]


def test_an_inactive_or_unknown_system_takes_no_sign_up(subscribe):
    inactive = TrailSystemFactory(inactive=True)

    assert subscribe(inactive, email="rider@example.test").status_code == 404
    assert mail.outbox == []


def test_a_french_system_confirms_in_french_and_unsubscribes_in_french(
    client, subscribe, sms_outbox
):
    system = TrailSystemFactory(name="Sentiers du Lac", language="fr", lat=46.9, lng=-71.2)

    response = subscribe(system, email="skieur@example.test", phone="+15145550101")

    assert "Vérifiez vos messages" in response.content.decode()
    assert mail.outbox[0].subject == "Confirmez votre abonnement à Sentiers du Lac"
    assert "est votre code" in sms_outbox[0].body
    opened = client.get(confirmation_link())
    assert "Confirmez votre abonnement" in opened.content.decode()
    assert "Confirmer mon abonnement" in opened.content.decode()
    confirmed = client.post(confirmation_link())
    assert "Vous êtes abonné" in confirmed.content.decode()

    subscriber = Subscriber.objects.get()
    page = client.post(f"/unsubscribe/{subscriber.unsubscribe_token}")
    assert "Vous êtes désabonné" in page.content.decode()


def test_a_phone_subscribed_from_the_map_leaves_with_a_french_stop(
    client, subscribe, system, sms_outbox, settings
):
    response = subscribe(system, phone="+15145550101")
    client.post(
        f"/subscribe/{system.pk}/code",
        {"pending": pending_id(response), "code": sent_code(sms_outbox)},
    )

    settings.SMS_BACKEND = settings.TWILIO_SMS_BACKEND
    settings.TWILIO_AUTH_TOKEN = "twilio-auth-token"
    reply = {"From": "+15145550101", "Body": "Arrêt"}
    signature = RequestValidator("twilio-auth-token").compute_signature(
        f"{settings.PUBLIC_BASE_URL}/sms/inbound", reply
    )
    client.post("/sms/inbound", reply, HTTP_X_TWILIO_SIGNATURE=signature)

    assert Subscriber.objects.get().unsubscribed_on is not None


def test_sign_ups_older_than_a_day_are_forgotten(subscribe, system):
    subscribe(system, email="old@example.test")
    subscribe(system, email="new@example.test")
    PendingSubscription.objects.filter(email="old@example.test").update(
        expires_on=timezone.now() - timedelta(minutes=1)
    )

    assert purge_expired_confirmations() == 1

    assert list(PendingSubscription.objects.values_list("email", flat=True)) == ["new@example.test"]
