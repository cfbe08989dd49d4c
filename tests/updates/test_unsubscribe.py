from urllib.parse import urlsplit

import pytest
from django.core import mail
from django.test import Client
from twilio.request_validator import RequestValidator

from tests.factories import SubscriberFactory, TrailSystemFactory, UpdateFactory
from updates import tasks
from updates.models import Subscriber

pytestmark = pytest.mark.django_db
pytest_plugins = ["tests.updates.notify_fixtures"]

TOKEN = "twilio-auth-token"


@pytest.fixture
def subscriber():
    system = TrailSystemFactory(name="Mont Vert", language="en")
    return SubscriberFactory(trail_system=system, email="a@example.test", phone="+15145550101")


def still_subscribed(subscriber) -> bool:
    return Subscriber.objects.get(pk=subscriber.pk).unsubscribed_on is None


def test_opening_the_link_changes_nothing_and_shows_one_button(client, subscriber):
    for _ in range(3):  # a mail scanner, a link preview, then the person
        response = client.get(f"/unsubscribe/{subscriber.unsubscribe_token}")

    page = response.content.decode()
    assert response.status_code == 200
    assert "Unsubscribe?" in page
    assert "a@example.test gets updates from Mont Vert" in page
    assert page.count("<button") == 1 and 'method="post"' in page
    assert "csrfmiddlewaretoken" not in page and not response.cookies
    assert response["Cache-Control"].startswith("max-age=0")
    assert client.head(f"/unsubscribe/{subscriber.unsubscribe_token}").status_code == 200
    assert still_subscribed(subscriber)


def test_the_button_unsubscribes_from_a_browser_without_cookies(subscriber):
    browser = Client(enforce_csrf_checks=True)

    response = browser.post(f"/unsubscribe/{subscriber.unsubscribe_token}")

    assert response.status_code == 200
    assert "You are unsubscribed" in response.content.decode()
    assert "Mont Vert" in response.content.decode()
    assert f'href="/map/{subscriber.trail_system_id}"' in response.content.decode()
    assert not still_subscribed(subscriber)


def test_pressing_the_button_again_keeps_the_first_date(client, subscriber):
    client.post(f"/unsubscribe/{subscriber.unsubscribe_token}")
    first = Subscriber.objects.get(pk=subscriber.pk).unsubscribed_on

    again = client.post(f"/unsubscribe/{subscriber.unsubscribe_token}")
    opened = client.get(f"/unsubscribe/{subscriber.unsubscribe_token}")

    assert again.status_code == opened.status_code == 200
    assert "You are unsubscribed" in opened.content.decode()
    assert "<button" not in opened.content.decode()
    assert Subscriber.objects.get(pk=subscriber.pk).unsubscribed_on == first


@pytest.mark.parametrize("encoding", ["urlencoded", "multipart"])
def test_a_mail_providers_one_click_post_unsubscribes_without_a_page(
    subscriber, encoding, sms_outbox, settings, django_capture_on_commit_callbacks
):
    """RFC 8058: the provider posts `List-Unsubscribe=One-Click` to the header's address, with
    no cookie or CSRF token."""
    settings.PUBLIC_BASE_URL = "https://trails.example.test"
    with django_capture_on_commit_callbacks(execute=True):
        update = UpdateFactory(trail_system=subscriber.trail_system, notify=True)
        tasks.notify_subscribers_on_commit(update.pk)
    headers = mail.outbox[0].message()
    assert headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    url = urlsplit(headers["List-Unsubscribe"].strip("<>"))
    assert url.scheme == "https"
    provider = Client(enforce_csrf_checks=True)
    if encoding == "urlencoded":
        response = provider.post(
            url.path, "List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded"
        )
    else:
        response = provider.post(url.path, {"List-Unsubscribe": "One-Click"})

    assert response.status_code == 200
    assert response.content == b""
    assert not still_subscribed(subscriber)


def test_the_page_speaks_the_systems_language(client):
    system = TrailSystemFactory(name="Sentiers du Lac", language="fr")
    subscriber = SubscriberFactory(trail_system=system, email="b@example.test")

    opened = client.get(f"/unsubscribe/{subscriber.unsubscribe_token}")
    done = client.post(f"/unsubscribe/{subscriber.unsubscribe_token}")

    assert "Me désabonner" in opened.content.decode()
    assert 'lang="fr"' in opened.content.decode()
    assert "Vous êtes désabonné" in done.content.decode()
    assert "Retour à la carte" in done.content.decode()


@pytest.mark.parametrize("method", ["get", "post"])
def test_a_forged_token_gets_a_page_that_says_so(client, subscriber, method):
    response = getattr(client, method)("/unsubscribe/not-a-token")

    assert response.status_code == 404
    assert "Link not recognised" in response.content.decode()
    assert "This unsubscribe link is not valid" in response.content.decode()
    assert "<button" not in response.content.decode()
    assert still_subscribed(subscriber)


def test_a_one_click_post_of_a_forged_token_is_refused(client, subscriber):
    response = client.post("/unsubscribe/not-a-token", {"List-Unsubscribe": "One-Click"})

    assert response.status_code == 404
    assert still_subscribed(subscriber)


def test_an_unsubscribed_subscriber_gets_no_further_messages(
    client, subscriber, sms_outbox, django_capture_on_commit_callbacks
):
    client.post(f"/unsubscribe/{subscriber.unsubscribe_token}")

    with django_capture_on_commit_callbacks(execute=True):
        update = UpdateFactory(trail_system=subscriber.trail_system, notify=True)
        tasks.notify_subscribers_on_commit(update.pk)

    assert mail.outbox == [] and sms_outbox == []


@pytest.fixture
def twilio(settings):
    """The Twilio SMS backend, whose auth token signs every inbound post."""
    settings.SMS_BACKEND = settings.TWILIO_SMS_BACKEND
    settings.TWILIO_AUTH_TOKEN = TOKEN


def signed_post(client, settings, data: dict, token: str = TOKEN):
    url = f"{settings.PUBLIC_BASE_URL}/sms/inbound"
    signature = RequestValidator(token).compute_signature(url, data)
    return client.post("/sms/inbound", data, HTTP_X_TWILIO_SIGNATURE=signature)


@pytest.mark.parametrize("word", ["STOP", "stop", "Unsubscribe", "optout", "ARRET", "arrêt"])
def test_an_sms_stop_reply_unsubscribes_every_subscription_of_the_number(
    client, settings, twilio, subscriber, word
):
    elsewhere = SubscriberFactory(phone=subscriber.phone, email="")

    response = signed_post(client, settings, {"From": subscriber.phone, "Body": f" {word} "})

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/xml")
    assert not Subscriber.objects.filter(
        pk__in=[subscriber.pk, elsewhere.pk], unsubscribed_on=None
    ).exists()


def test_a_keyword_twilio_classed_as_opt_out_unsubscribes(client, settings, twilio, subscriber):

    signed_post(client, settings, {"From": subscriber.phone, "Body": "FIN", "OptOutType": "STOP"})

    assert Subscriber.objects.get(pk=subscriber.pk).unsubscribed_on is not None


def test_other_replies_change_nothing(client, settings, twilio, subscriber):

    signed_post(client, settings, {"From": subscriber.phone, "Body": "Is the lift open?"})

    assert Subscriber.objects.get(pk=subscriber.pk).unsubscribed_on is None


def test_a_post_not_signed_by_twilio_is_refused(client, settings, twilio, subscriber):

    response = signed_post(
        client, settings, {"From": subscriber.phone, "Body": "STOP"}, token="wrong"
    )

    assert response.status_code == 403
    assert Subscriber.objects.get(pk=subscriber.pk).unsubscribed_on is None


def test_an_unsigned_post_is_refused(client, settings, twilio, subscriber):
    response = client.post("/sms/inbound", {"From": subscriber.phone, "Body": "STOP"})

    assert response.status_code == 403
    assert Subscriber.objects.get(pk=subscriber.pk).unsubscribed_on is None


@pytest.mark.parametrize(
    "backend", ["updates.sms.console.SmsBackend", "updates.sms.locmem.SmsBackend"]
)
def test_without_the_twilio_backend_there_is_no_inbound_route(
    client, settings, subscriber, backend
):
    settings.SMS_BACKEND = backend
    settings.TWILIO_AUTH_TOKEN = ""

    response = client.post("/sms/inbound", {"From": subscriber.phone, "Body": "STOP"})

    assert response.status_code == 404
    assert Subscriber.objects.get(pk=subscriber.pk).unsubscribed_on is None


def test_a_nul_byte_in_the_sender_changes_nothing(client, settings, twilio, subscriber):
    response = signed_post(client, settings, {"From": "+1514\x005550101", "Body": "STOP"})

    assert response.status_code == 200
    assert Subscriber.objects.get(pk=subscriber.pk).unsubscribed_on is None


@pytest.mark.parametrize("token", ["abc%00def", "%00", "abc%0A"])
def test_a_control_character_in_the_unsubscribe_token_is_a_404(client, subscriber, token):
    assert client.get(f"/unsubscribe/{token}").status_code == 404
    assert client.post(f"/unsubscribe/{token}").status_code == 404
    assert Subscriber.objects.get(pk=subscriber.pk).unsubscribed_on is None


def test_a_system_name_with_markup_is_text_on_the_links_page(client):
    system = TrailSystemFactory(name='<img src="/xss.png">Lac')
    subscriber = SubscriberFactory(trail_system=system, email="c@example.test")

    page = client.get(f"/unsubscribe/{subscriber.unsubscribe_token}").content.decode()

    assert '<img src="/xss.png">' not in page
    assert "&lt;img src=&quot;/xss.png&quot;&gt;Lac" in page
