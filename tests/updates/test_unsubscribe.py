import pytest
from django.core import mail
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


def test_the_link_unsubscribes_without_login_and_confirms(client, subscriber):
    response = client.get(f"/unsubscribe/{subscriber.unsubscribe_token}")

    assert response.status_code == 200
    assert "You are unsubscribed" in response.content.decode()
    assert "Mont Vert" in response.content.decode()
    subscriber.refresh_from_db()
    assert subscriber.unsubscribed_on is not None


def test_following_the_link_again_changes_nothing(client, subscriber):
    client.get(f"/unsubscribe/{subscriber.unsubscribe_token}")
    subscriber.refresh_from_db()
    first = subscriber.unsubscribed_on

    response = client.get(f"/unsubscribe/{subscriber.unsubscribe_token}")

    assert response.status_code == 200
    subscriber.refresh_from_db()
    assert subscriber.unsubscribed_on == first


def test_a_mail_clients_one_click_post_unsubscribes(client, subscriber):
    response = client.post(
        f"/unsubscribe/{subscriber.unsubscribe_token}",
        {"List-Unsubscribe": "One-Click"},
    )

    assert response.status_code == 200
    assert Subscriber.objects.get(pk=subscriber.pk).unsubscribed_on is not None


def test_the_page_speaks_the_systems_language(client):
    system = TrailSystemFactory(name="Sentiers du Lac", language="fr")
    subscriber = SubscriberFactory(trail_system=system, email="b@example.test")

    response = client.get(f"/unsubscribe/{subscriber.unsubscribe_token}")

    assert "Vous êtes désabonné" in response.content.decode()
    assert 'lang="fr"' in response.content.decode()


def test_an_unknown_token_is_a_404_page(client):
    response = client.get("/unsubscribe/not-a-token")

    assert response.status_code == 404
    assert "not valid" in response.content.decode()


def test_an_unsubscribed_subscriber_gets_no_further_messages(
    client, subscriber, sms_outbox, django_capture_on_commit_callbacks
):
    client.get(f"/unsubscribe/{subscriber.unsubscribe_token}")

    with django_capture_on_commit_callbacks(execute=True):
        update = UpdateFactory(trail_system=subscriber.trail_system, notify=True)
        tasks.notify_subscribers_on_commit(update.pk)

    assert mail.outbox == [] and sms_outbox == []


def signed_post(client, settings, data: dict, token: str = TOKEN):
    url = f"{settings.PUBLIC_BASE_URL}/sms/inbound"
    signature = RequestValidator(token).compute_signature(url, data)
    return client.post("/sms/inbound", data, HTTP_X_TWILIO_SIGNATURE=signature)


@pytest.mark.parametrize("word", ["STOP", "stop", "Unsubscribe", "optout", "ARRET", "arrêt"])
def test_an_sms_stop_reply_unsubscribes_every_subscription_of_the_number(
    client, settings, subscriber, word
):
    settings.TWILIO_AUTH_TOKEN = TOKEN
    elsewhere = SubscriberFactory(phone=subscriber.phone, email="")

    response = signed_post(client, settings, {"From": subscriber.phone, "Body": f" {word} "})

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/xml")
    assert not Subscriber.objects.filter(
        pk__in=[subscriber.pk, elsewhere.pk], unsubscribed_on=None
    ).exists()


def test_a_keyword_twilio_classed_as_opt_out_unsubscribes(client, settings, subscriber):
    settings.TWILIO_AUTH_TOKEN = TOKEN

    signed_post(client, settings, {"From": subscriber.phone, "Body": "FIN", "OptOutType": "STOP"})

    assert Subscriber.objects.get(pk=subscriber.pk).unsubscribed_on is not None


def test_other_replies_change_nothing(client, settings, subscriber):
    settings.TWILIO_AUTH_TOKEN = TOKEN

    signed_post(client, settings, {"From": subscriber.phone, "Body": "Is the lift open?"})

    assert Subscriber.objects.get(pk=subscriber.pk).unsubscribed_on is None


def test_a_post_not_signed_by_twilio_is_refused(client, settings, subscriber):
    settings.TWILIO_AUTH_TOKEN = TOKEN

    response = signed_post(
        client, settings, {"From": subscriber.phone, "Body": "STOP"}, token="wrong"
    )

    assert response.status_code == 403
    assert Subscriber.objects.get(pk=subscriber.pk).unsubscribed_on is None
