"""Sign-up abuse that costs money or reaches the wrong hosts (issue 26 items 1 and 6): the
day's budget of confirmation SMS, numbers that may not get our texts, the system's countries,
and e-mail addresses that are not public mailboxes."""

import html

import pytest
from django.core import mail
from django.core.exceptions import ValidationError
from prometheus_client import REGISTRY

from tests.factories import MembershipFactory, TrailFactory, TrailSystemFactory, UserFactory, line
from trails.countries import country_at
from updates.models import PendingSubscription
from updates.subscribers import add_subscriber

pytestmark = pytest.mark.django_db
pytest_plugins = ["tests.updates.notify_fixtures"]

PAUSED = "Sign-up by text message is paused for today"


@pytest.fixture
def system():
    """In Montana, with the default budget (100) and the default countries (its own)."""
    owner = UserFactory(uid="owner", email="owner@example.test")
    system = TrailSystemFactory(name="Lost Trail", language="en", owner=owner)
    MembershipFactory(trail_system=system, role="Administrator", user__email="admin@example.test")
    MembershipFactory(trail_system=system, role="Trustee", user__email="trustee@example.test")
    return system


@pytest.fixture
def subscribe(client, django_capture_on_commit_callbacks):
    """Post the map's form from its own client address (the limits per address stay out of
    the way), running what the commit sends."""
    count = iter(range(1, 1_000_000))

    def post(system, *, email="", phone=""):
        n = next(count)
        with django_capture_on_commit_callbacks(execute=True):
            return client.post(
                f"/subscribe/{system.pk}",
                {"email": email, "phone": phone},
                REMOTE_ADDR=f"198.51.{n // 250}.{n % 250 + 1}",
            )

    return post


def text(response) -> str:
    return html.unescape(response.content.decode())


def refusals(reason: str) -> float:
    labels = {"reason": reason}
    return REGISTRY.get_sample_value("trails_sms_confirmations_refused_total", labels) or 0.0


def budget_mails() -> list:
    return [m for m in mail.outbox if "sign-up by text message is paused" in m.subject]


def test_the_101st_confirmation_sms_of_a_day_is_not_sent_and_the_form_says_why(
    client, subscribe, system, sms_outbox
):
    refused_before = refusals("system_budget")
    answers = [subscribe(system, phone=f"+1406555{n:04d}").status_code for n in range(100)]
    assert answers == [200] * 100
    assert len(sms_outbox) == 100

    refused = subscribe(system, phone="+14065550100")

    assert refused.status_code == 429 and refused["Retry-After"]
    page = text(refused)
    assert PAUSED in page
    assert 'name="email"' in page and 'name="phone"' not in page
    assert len(sms_outbox) == 100
    assert PendingSubscription.objects.filter(phone="+14065550100").count() == 0
    assert refusals("system_budget") == refused_before + 1

    # E-mail sign-up goes on; a number given with it gets no code, and the page says so.
    both = subscribe(system, email="rider@example.test", phone="+14065550101")
    assert both.status_code == 200
    assert "a confirmation link is on its way" in text(both)
    assert "paused for today, so no code was sent to +14065550101" in text(both)
    assert len(sms_outbox) == 100
    assert PendingSubscription.objects.get(email="rider@example.test").phone == ""
    assert any("rider@example.test" in m.to for m in mail.outbox)

    # The map's form says it before anyone types a number.
    map_page = client.get(f"/map/{system.pk}").content.decode()
    assert PAUSED in map_page and 'name="phone"' not in map_page

    # The Administrators (owner and Administrator members, not Trustees) got one e-mail.
    subscribe(system, phone="+14065550102")
    [told] = budget_mails()
    assert sorted(told.to) == ["admin@example.test", "owner@example.test"]
    assert told.subject == "Lost Trail: sign-up by text message is paused for today"
    assert "sent its 100 confirmation text messages for today" in told.body
    assert f"/admin/trails/trailsystem/{system.pk}/change/" in told.body


def test_the_budget_is_the_systems_own_and_notifications_are_not_capped(
    client, subscribe, system, sms_outbox, manager
):
    response = manager.patch(
        f"/api/v1/trail-systems/{system.pk}", {"smsConfirmationsPerDay": 2}, format="json"
    )
    assert response.json()["smsConfirmationsPerDay"] == 2
    answers = [subscribe(system, phone=f"+1406555{n:04d}").status_code for n in range(3)]
    assert answers == [200, 200, 429]
    assert len(sms_outbox) == 2

    other = TrailSystemFactory()  # another system's budget is its own
    assert subscribe(other, phone="+14065559999").status_code == 200
    assert len(sms_outbox) == 3


@pytest.mark.usefixtures("sms_outbox")
def test_the_sites_budget_counts_every_system(subscribe, settings, system):
    settings.SMS_CONFIRMATIONS_PER_DAY = 3
    others = [TrailSystemFactory() for _ in range(2)]
    answers = [
        subscribe(target, phone=f"+1406555{n:04d}").status_code
        for n, target in enumerate([system, *others, system])
    ]
    assert answers == [200, 200, 200, 429]
    [told] = budget_mails()
    assert "the whole site sent its 3 confirmation text messages for today" in told.body


def test_a_budget_of_zero_offers_no_sign_up_by_text(client, subscribe, system, sms_outbox):
    system.sms_confirmations_per_day = 0
    system.save()
    assert 'name="phone"' not in client.get(f"/map/{system.pk}").content.decode()
    assert subscribe(system, phone="+14065550123").status_code == 429
    assert sms_outbox == [] and budget_mails() == []


REFUSED_NUMBERS = {
    "premium rate": "+19005550123",
    "satellite (+881)": "+881631234567",
    "international network (+882)": "+8823421234",
    "international network (+883)": "+883510012345",
    "personal": "+447011234567",
    "shared cost": "+33884012345",
    "UAN": "+445512345678",
    "pager": "+447640123456",
    "voicemail": "+49177991234567",
    "toll free": "+18002345678",
    "fixed line": "+33123456789",
}


@pytest.mark.parametrize("number", REFUSED_NUMBERS.values(), ids=REFUSED_NUMBERS.keys())
def test_numbers_that_are_not_mobile_get_400_and_no_sms(subscribe, system, sms_outbox, number):
    system.sms_countries = ["US", "GB", "FR", "DE"]
    system.save()
    before = refusals("not_mobile")

    response = subscribe(system, email="rider@example.test", phone=number)

    assert response.status_code == 400
    assert f"{number} cannot get our text messages" in text(response)
    assert sms_outbox == [] and mail.outbox == []
    assert not PendingSubscription.objects.exists()
    assert refusals("not_mobile") == before + 1


def test_a_number_of_another_country_gets_400_until_the_country_is_added(
    subscribe, system, sms_outbox, manager
):
    french_mobile = "+33612345678"
    response = subscribe(system, phone=french_mobile)
    assert response.status_code == 400
    assert (
        "Sign-up by text message is open to mobile numbers of United States only, "
        f"and {french_mobile} is not one." in text(response)
    )
    assert sms_outbox == []

    changed = manager.patch(
        f"/api/v1/trail-systems/{system.pk}", {"smsCountries": ["US", "FR"]}, format="json"
    )
    assert changed.status_code == 200 and changed.json()["smsCountries"] == ["US", "FR"]

    assert subscribe(system, phone=french_mobile).status_code == 200
    assert [m.to for m in sms_outbox] == [french_mobile]


def test_a_french_system_refuses_in_french(subscribe, sms_outbox):
    system = TrailSystemFactory(language="fr", lat=46.9, lng=-71.2)  # near Quebec City
    response = subscribe(system, phone="+33612345678")
    assert response.status_code == 400
    assert "L'abonnement par texto est ouvert aux cellulaires de Canada seulement" in text(response)
    response = subscribe(system, phone="+19005550123")
    assert "ne peut pas recevoir nos textos" in text(response)


# The countries of a system


def test_the_default_country_is_the_systems_own_side_of_a_border():
    assert country_at(45.69, -113.95) == "US"  # Lost Trail, Montana
    assert country_at(44.94, -72.50) == "US"  # Jay Peak, Vermont, 15 km from Quebec
    assert country_at(47.07, -70.90) == "CA"  # Mont-Sainte-Anne
    assert country_at(46.19, 6.77) == "FR"  # Avoriaz, a ridge away from Switzerland
    assert country_at(46.18, 6.87) == "CH"  # Champéry
    assert country_at(40.0, -40.0) is None  # mid-Atlantic


def test_without_a_location_the_default_is_the_country_of_the_trails_centre(manager, system):
    system.lat = system.lng = None
    system.save()
    url = f"/api/v1/trail-systems/{system.pk}"
    assert manager.get(url).json()["smsCountries"] == []
    TrailFactory(trail_system=system, geometry=line(6.86, 45.92), lat=45.92, lng=6.86)  # Chamonix
    assert manager.get(url).json()["smsCountries"] == ["FR"]


def test_sms_countries_are_iso_codes_and_an_empty_list_restores_the_default(manager, system):
    url = f"/api/v1/trail-systems/{system.pk}"
    assert manager.get(url).json()["smsCountries"] == ["US"]
    for wrong in (["XX"], ["USA"], ["us"], "US", [1]):
        response = manager.patch(url, {"smsCountries": wrong}, format="json")
        assert response.status_code == 400, wrong
        assert response.json()["error"]["code"] == "invalid_field"
    assert manager.patch(url, {"smsCountries": ["CA", "US", "CA"]}, format="json").json()[
        "smsCountries"
    ] == ["CA", "US"]
    assert manager.patch(url, {"smsCountries": []}, format="json").json()["smsCountries"] == ["US"]
    for wrong in (-1, 1.5, "5", 1_000_001):
        response = manager.patch(url, {"smsConfirmationsPerDay": wrong}, format="json")
        assert response.status_code == 400, wrong


def test_administrators_set_the_countries_and_budget_in_the_web_app(client, system):
    client.force_login(system.owner, backend="webapp.backends.RoleBackend")
    page = f"/admin/trails/trailsystem/{system.pk}/change/"
    form = text(client.get(page))
    assert "the country of the system's location (now: US)" in form
    data = {
        "name": system.name,
        "language": "en",
        "depth_measurement": "inches",
        "length_measurement": "miles",
        "temp_measurement": "fahrenheit",
        "sms_countries": "us, ca",
        "sms_confirmations_per_day": "250",
        "reports_per_day": "200",
        "memberships-TOTAL_FORMS": "0",
        "memberships-INITIAL_FORMS": "0",
        "memberships-MIN_NUM_FORMS": "0",
        "memberships-MAX_NUM_FORMS": "1000",
    }
    assert client.post(page, data).status_code == 302
    system.refresh_from_db()
    assert (system.sms_countries, system.sms_confirmations_per_day) == (["US", "CA"], 250)

    refused = client.post(page, data | {"sms_countries": "US, Narnia"})
    assert refused.status_code == 200
    assert "'NARNIA' is not an ISO 3166-1 alpha-2 country code" in text(refused)


# Public mailboxes only (item 6)


@pytest.mark.parametrize(
    ("address", "words"),
    [
        ("rider@localhost", "We cannot write to rider@localhost"),
        ("rider@intranet", "rider@intranet is not a valid e-mail address"),
        ("rider@[127.0.0.1]", "We cannot write to rider@[127.0.0.1]"),
        ("rider@[::1]", "We cannot write to rider@[::1]"),
        (f"{'a' * 65}@example.test", "is too long: mail servers take at most 64 characters"),
        (f"{'a' * 300}@example.test", "is too long"),
    ],
)
def test_sign_up_refuses_addresses_that_are_not_public_mailboxes(subscribe, system, address, words):
    response = subscribe(system, email=address)
    assert response.status_code == 400
    assert words in text(response)
    assert mail.outbox == []
    assert not PendingSubscription.objects.exists()


def test_public_mailboxes_sign_up(subscribe, system):
    for address in (f"{'a' * 64}@example.test", "rider@mail.example.co.uk"):
        assert subscribe(system, email=address).status_code == 200
    assert len(mail.outbox) == 2


def test_a_subscriber_added_by_hand_must_have_a_mobile_number_too(system):
    with pytest.raises(ValidationError, match="cannot receive our text messages"):
        add_subscriber(system=system, phone="+19005550123")
    # A manager may add a number of another country by hand.
    assert add_subscriber(system=system, phone="+33612345678").phone == "+33612345678"
