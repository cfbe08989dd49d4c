"""Signing in to the web app: ID token, e-mailed link, password; and the throttle on failures."""

import re
import time
from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.contrib.auth import SESSION_KEY, authenticate
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.db.models import F

from apikeys.tokens import mint_emulator_token
from tests.factories import MembershipFactory, TrailSystemFactory, UserFactory

pytestmark = pytest.mark.django_db

TOKEN_URL = "/admin/login/token/"
LINK_URL = "/admin/login/link/"
USE_URL = "/admin/login/link/use/"


@pytest.fixture
def owner():
    return TrailSystemFactory(owner=UserFactory(uid="owner-1", email="owner@example.test")).owner


def signed_in_uid(client) -> str | None:
    return client.session.get(SESSION_KEY)


def test_a_valid_id_token_starts_a_session_and_goes_to_next(client, owner):
    token = mint_emulator_token(owner.uid, owner.email)
    response = client.post(TOKEN_URL, {"id_token": token, "next": "/admin/trails/trail/"})
    assert response.status_code == 302
    assert response["Location"] == "/admin/trails/trail/"
    assert signed_in_uid(client) == owner.uid
    assert client.get("/admin/").status_code == 200


def test_a_token_of_a_new_account_creates_it_as_the_api_does(client):
    client.post(TOKEN_URL, {"id_token": mint_emulator_token("brand-new", "new@example.test")})
    assert signed_in_uid(client) == "brand-new"


def test_next_on_another_site_goes_to_the_index_instead(client, owner):
    token = mint_emulator_token(owner.uid, owner.email)
    response = client.post(TOKEN_URL, {"id_token": token, "next": "https://evil.example/x"})
    assert response["Location"] == "/admin/"


@pytest.mark.parametrize(
    "token",
    ["garbage", mint_emulator_token("owner-1", expires_in=-60), ""],
    ids=["garbage", "expired", "empty"],
)
def test_an_invalid_or_expired_token_shows_the_login_page_with_an_error(client, owner, token):
    response = client.post(TOKEN_URL, {"id_token": token})
    assert response.status_code == 401
    assert "That sign-in is invalid or has expired." in response.content.decode()
    assert 'id="link-form"' in response.content.decode()
    assert signed_in_uid(client) is None


def test_the_token_route_takes_only_post(client):
    assert client.get(TOKEN_URL).status_code == 405


def sent_link(mailoutbox) -> str:
    (message,) = mailoutbox
    return re.search(r"http://\S+", message.body).group(0)


def test_an_emailed_link_signs_in_once(client, owner, mailoutbox):
    response = client.post(LINK_URL, {"email": "OWNER@example.test"}, follow=True)
    assert "a sign-in link is on its way" in response.content.decode()
    link = sent_link(mailoutbox)
    assert mailoutbox[0].to == ["owner@example.test"]
    path = link.removeprefix("http://127.0.0.1:8000")

    # Opening the link (a mail scanner may) shows a button and spends nothing.
    page = client.get(path)
    assert 'id="use-link-form"' in page.content.decode()
    assert signed_in_uid(client) is None

    token = re.search(r"sesame=([^&]+)", link).group(1)
    response = client.post(USE_URL, {"sesame": token})
    assert response.status_code == 302
    assert signed_in_uid(client) == owner.uid

    client.logout()
    again = client.post(USE_URL, {"sesame": token})
    assert again.status_code == 401
    assert "already used, has expired or is not valid" in again.content.decode()
    assert signed_in_uid(client) is None


def test_an_emailed_link_brings_the_reader_back_to_the_page_they_asked_for(
    client, owner, mailoutbox
):
    """A plain-text e-mail: the link's `&` is not HTML-escaped, so `next` survives."""
    client.post(LINK_URL, {"email": "owner@example.test", "next": "/admin/trails/trail/"})
    link = sent_link(mailoutbox)
    page = client.get(link.removeprefix("http://127.0.0.1:8000"))
    token = re.search(r"sesame=([^&]+)", link).group(1)
    next_field = re.search(r'name="next" value="([^"]*)"', page.content.decode()).group(1)

    response = client.post(USE_URL, {"sesame": token, "next": next_field})

    assert response.status_code == 302
    assert response["Location"] == "/admin/trails/trail/"


def test_an_unknown_address_gets_the_same_answer_and_no_mail(client, owner, mailoutbox):
    known = client.post(LINK_URL, {"email": owner.email})
    unknown = client.post(LINK_URL, {"email": "nobody@example.test"})
    assert (unknown.status_code, unknown["Location"]) == (known.status_code, known["Location"])
    assert len(mailoutbox) == 1


def test_sign_in_links_are_limited_per_email_address(client, owner, mailoutbox):
    answers = [client.post(LINK_URL, {"email": owner.email}) for _ in range(4)]
    assert [a.status_code for a in answers] == [302, 302, 302, 429]
    assert len(mailoutbox) == 3
    assert "a sign-in link is on its way" in answers[-1].content.decode()
    assert answers[-1]["Retry-After"] == "3600"

    other = UserFactory(uid="other-1", email="other@example.test")
    assert client.post(LINK_URL, {"email": other.email}).status_code == 302
    assert mailoutbox[-1].to == [other.email]


def test_sign_in_links_are_limited_per_client_address(client, owner, mailoutbox):
    def ask(email: str, address: str):
        return client.post(LINK_URL, {"email": email}, REMOTE_ADDR=address)

    answers = [ask(f"someone{n}@example.test", "203.0.113.7") for n in range(5)]
    assert [a.status_code for a in answers] == [302] * 5
    refused = ask(owner.email, "203.0.113.7")
    assert refused.status_code == 429
    assert mailoutbox == []
    assert ask(owner.email, "203.0.113.8").status_code == 302
    assert mailoutbox[0].to == [owner.email]


def test_an_unknown_address_past_the_limit_reads_the_same_as_a_known_one(client, owner):
    for email in (owner.email, "nobody@example.test"):
        for _ in range(3):
            client.post(LINK_URL, {"email": email}, REMOTE_ADDR="198.51.100.1")
    known = client.post(LINK_URL, {"email": owner.email}, REMOTE_ADDR="198.51.100.2")
    unknown = client.post(LINK_URL, {"email": "nobody@example.test"}, REMOTE_ADDR="198.51.100.3")
    assert known.status_code == unknown.status_code == 429
    assert "a sign-in link is on its way" in unknown.content.decode()


def test_a_link_expires(client, owner, mailoutbox, settings):
    settings.SESAME_MAX_AGE = 1
    client.post(LINK_URL, {"email": owner.email})
    token = re.search(r"sesame=([^&\s]+)", mailoutbox[0].body).group(1)
    time.sleep(2.1)
    assert client.post(USE_URL, {"sesame": token}).status_code == 401


def test_the_signin_link_command_prints_a_working_link(client, owner, capsys):
    call_command("signin_link", owner.uid)
    link = capsys.readouterr().out.strip()
    token = re.search(r"sesame=([^&\s]+)", link).group(1)
    client.post(USE_URL, {"sesame": token})
    assert signed_in_uid(client) == owner.uid


def test_operators_passwords_follow_djangos_validators():
    with pytest.raises(ValidationError):
        validate_password("password")
    validate_password("a long and unusual pass phrase")


@pytest.fixture
def operator():
    user = UserFactory(uid="operator", is_staff=True, is_superuser=True)
    user.set_password("correct horse battery staple")
    user.save()
    return user


def test_an_operator_signs_in_with_a_password(client, operator):
    response = client.post(
        "/admin/login/", {"username": "operator", "password": "correct horse battery staple"}
    )
    assert response.status_code == 302
    assert signed_in_uid(client) == "operator"


RIGHT = "correct horse battery staple"


def sign_in(client, uid: str, password: str, address: str = "127.0.0.1"):
    return client.post(
        "/admin/login/", {"username": uid, "password": password}, REMOTE_ADDR=address
    )


def test_password_guessing_is_locked_out_per_account(client, operator):
    for _ in range(5):
        sign_in(client, "operator", "wrong")
    response = sign_in(client, "operator", RIGHT)
    assert response.status_code == 429
    assert signed_in_uid(client) is None


@pytest.fixture
def manager(owner):
    """An operator who owns a system: a password, and an e-mail address for links."""
    owner.is_staff = True
    owner.set_password(RIGHT)
    owner.save()
    return owner


def test_twelve_wrong_passwords_lock_the_accounts_password_form_until_the_cool_off_ends(
    client, manager, operator, mailoutbox
):
    for n in range(12):  # from addresses of their own: the account is what is counted
        sign_in(client, manager.uid, f"guess-{n}", address=f"203.0.113.{n + 1}")

    refused = sign_in(client, manager.uid, RIGHT, address="198.51.100.1")
    assert refused.status_code == 429
    assert refused["Retry-After"] == "900"
    assert "password sign-in is paused for 15 minutes" in refused.content.decode()
    assert signed_in_uid(client) is None

    # Another account, from another address, still signs in with its password.
    assert sign_in(client, "operator", RIGHT, address="198.51.100.2").status_code == 302
    assert signed_in_uid(client) == "operator"
    client.logout()

    # The locked account's e-mailed link still works.
    client.post(LINK_URL, {"email": manager.email}, REMOTE_ADDR="198.51.100.1")
    token = re.search(r"sesame=([^&]+)", sent_link(mailoutbox)).group(1)
    assert client.post(USE_URL, {"sesame": token}).status_code == 302
    assert signed_in_uid(client) == manager.uid
    client.logout()

    # Fifteen minutes later the password works again.
    AccessAttempt.objects.update(attempt_time=F("attempt_time") - timedelta(minutes=16))
    again = sign_in(client, manager.uid, RIGHT, address="198.51.100.1")
    assert again.status_code == 302, again.content.decode()


def test_wrong_passwords_for_a_name_nobody_holds_lock_nobody_real(client, operator):
    for n in range(12):
        sign_in(client, "operat0r", f"guess-{n}", address="203.0.113.7")

    assert sign_in(client, "operator", RIGHT, address="203.0.113.7").status_code == 302


def test_a_success_clears_no_failures(client, operator, manager):
    """A guesser with an account of their own cannot sign in between guesses to count again."""
    for n in range(4):
        sign_in(client, "operator", f"guess-{n}", address="203.0.113.7")
    assert sign_in(client, manager.uid, RIGHT, address="203.0.113.7").status_code == 302
    client.logout()
    sign_in(client, "operator", "guess-5", address="203.0.113.7")

    assert sign_in(client, "operator", RIGHT, address="198.51.100.1").status_code == 429


def test_the_account_is_counted_whatever_the_form_names_its_field(client, operator, rf):
    """The admin form sends `username`; a form that sends the account's own field (`uid`)
    is counted against the same account."""
    for n in range(5):
        request = rf.post("/somewhere/", {"uid": "operator", "password": f"guess-{n}"})
        assert authenticate(request, uid="operator", password=f"guess-{n}") is None

    assert {attempt.username for attempt in AccessAttempt.objects.all()} == {"operator"}
    assert sign_in(client, "operator", RIGHT, address="198.51.100.1").status_code == 429


def test_password_guessing_across_accounts_is_locked_out_per_client_address(
    client, operator, settings
):
    for n in range(settings.AXES_ADDRESS_FAILURE_LIMIT - 1):
        sign_in(client, f"someone-{n}", "wrong", address="203.0.113.7")
    assert sign_in(client, "operator", RIGHT, address="203.0.113.7").status_code == 302
    client.logout()
    sign_in(client, "someone-last", "wrong", address="203.0.113.7")

    assert sign_in(client, "operator", RIGHT, address="203.0.113.7").status_code == 429
    assert sign_in(client, "operator", RIGHT, address="198.51.100.1").status_code == 302


def test_failed_passwords_never_lock_out_a_token_or_link_sign_in(client, owner, mailoutbox):
    """Only the password form is locked: ID tokens and e-mailed links cannot be guessed, and
    behind a NAT a guesser shares the managers' address."""
    for n in range(6):
        client.post("/admin/login/", {"username": f"someone-{n}", "password": "wrong"})
    assert client.post(TOKEN_URL, {"id_token": mint_emulator_token(owner.uid)}).status_code == 302
    assert signed_in_uid(client) == owner.uid

    client.logout()
    client.post(LINK_URL, {"email": owner.email})
    token = re.search(r"sesame=([^&]+)", sent_link(mailoutbox)).group(1)
    assert client.post(USE_URL, {"sesame": token}).status_code == 302
    assert signed_in_uid(client) == owner.uid


def test_bad_tokens_and_links_lock_nothing_out(client, owner, operator):
    for n in range(6):
        client.post(TOKEN_URL, {"id_token": f"garbage-{n}"})
        client.post(USE_URL, {"sesame": f"garbage-{n}"})
    assert client.post(TOKEN_URL, {"id_token": mint_emulator_token(owner.uid)}).status_code == 302
    client.logout()
    response = client.post(
        "/admin/login/", {"username": "operator", "password": "correct horse battery staple"}
    )
    assert response.status_code == 302


def test_a_trustee_enters_the_web_app_but_an_outsider_does_not(client):
    trustee = MembershipFactory().user
    client.post(TOKEN_URL, {"id_token": mint_emulator_token(trustee.uid)})
    assert client.get("/admin/").status_code == 200
    client.logout()
    outsider = UserFactory()
    client.post(TOKEN_URL, {"id_token": mint_emulator_token(outsider.uid)})
    assert client.get("/admin/").status_code == 302


def test_the_login_page_offers_firebase_only_when_configured(client, settings):
    settings.FIREBASE_WEB_API_KEY = ""
    page = client.get("/admin/login/").content.decode()
    assert 'id="firebase-form"' not in page
    assert "E-mail me a sign-in link" in page

    settings.FIREBASE_WEB_API_KEY = "web-key"
    settings.FIREBASE_AUTH_DOMAIN = "demo-trails.firebaseapp.com"
    page = client.get("/admin/login/").content.decode()
    assert 'data-api-key="web-key"' in page
    assert "/static/vendor/firebase/firebase-auth-compat.js" in page
    # Every script is a file of ours, so a strict Content-Security-Policy holds.
    assert re.findall(r"<script(?![^>]*\bsrc=)[^>]*>", page) == []


def test_only_the_firebase_files_the_page_needs_are_served(client):
    served = client.get("/static/vendor/firebase/firebase-auth-compat.js")
    assert served.status_code == 200
    assert client.get("/static/vendor/firebase/firebase-app-compat.js").status_code == 200
    assert client.get("/static/vendor/firebase/firebase-firestore.js").status_code == 404
    assert client.get("/static/vendor/firebase/package.json").status_code == 404


def test_the_web_app_follows_the_browsers_language(client):
    french = client.get("/admin/login/", HTTP_ACCEPT_LANGUAGE="fr-CA,fr;q=0.9").content.decode()
    assert "M'envoyer un lien de connexion" in french or "M&#x27;envoyer un lien" in french
    english = client.get("/admin/login/", HTTP_ACCEPT_LANGUAGE="en-US").content.decode()
    assert "E-mail me a sign-in link" in english
