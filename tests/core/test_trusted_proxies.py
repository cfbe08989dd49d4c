"""The real client behind a proxy (issue 26 item 4). The suite's service trusts 127.0.0.9
(tests/settings.py); the live-server tests send from other loopback source addresses too, so
the peer address the server sees is a real socket's, not a header's."""

import re

import pytest
import requests
from django.core.cache import cache
from django.test import RequestFactory
from requests.adapters import HTTPAdapter

from apikeys.tokens import mint_emulator_token
from core.clients import client_address, counted_address, counted_client
from tests.factories import TrailSystemFactory, UserFactory
from updates.models import PendingSubscription

PROXY = "127.0.0.9"
ELSEWHERE = "127.0.0.5"  # a loopback address that is not a trusted proxy


@pytest.fixture(autouse=True)
def _fresh_rate_limits():
    cache.clear()
    yield
    cache.clear()


def seen(peer: str, forwarded: str | None = None, **meta) -> str:
    headers = {"HTTP_X_FORWARDED_FOR": forwarded} if forwarded is not None else {}
    return client_address(RequestFactory().get("/", REMOTE_ADDR=peer, **headers, **meta))


def test_behind_a_trusted_proxy_the_client_is_the_right_most_untrusted_address():
    assert seen(PROXY, "198.51.100.7") == "198.51.100.7"
    # Whatever the client wrote itself is left of what the proxy appended.
    assert seen(PROXY, "10.1.1.1, 203.0.113.50, 198.51.100.7") == "198.51.100.7"
    # Trusted proxies in the chain are stepped over.
    assert seen(PROXY, "198.51.100.7, 127.0.0.9, 127.0.0.9") == "198.51.100.7"
    assert seen(PROXY, "[2001:db8::1]:4711, 127.0.0.9") == "2001:db8::1"


def test_the_header_is_ignored_from_any_other_peer_or_when_it_names_nobody():
    assert seen(ELSEWHERE, "198.51.100.7") == ELSEWHERE
    assert seen("203.0.113.9", "198.51.100.7") == "203.0.113.9"
    assert seen(PROXY) == PROXY
    assert seen(PROXY, "garbage") == PROXY
    # A chain of nothing but trusted proxies names the furthest one.
    assert seen(PROXY, "127.0.0.9") == PROXY


def test_trusted_proxies_may_be_ranges(settings):
    settings.TRUSTED_PROXIES = ["10.0.0.0/8", "fd00::/8"]
    assert seen("10.4.5.6", "198.51.100.7, 10.9.9.9") == "198.51.100.7"
    assert seen("fd00::1", "2001:db8::7") == "2001:db8::7"
    assert seen("11.0.0.1", "198.51.100.7") == "11.0.0.1"


def test_limits_count_an_ipv6_client_by_its_64_and_an_ipv4_client_by_its_address():
    assert counted_address("2001:db8:1:2:aaaa::1") == "2001:db8:1:2::"
    assert counted_address("2001:db8:1:2:ffff:ffff:ffff:ffff") == "2001:db8:1:2::"
    assert counted_address("2001:db8:1:3::1") == "2001:db8:1:3::"
    assert counted_address("198.51.100.7") == "198.51.100.7"
    assert counted_address("::ffff:198.51.100.7") == "198.51.100.7"
    request = RequestFactory().get("/", REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR="2001:db8::9")
    assert counted_client(request) == "2001:db8::"


@pytest.mark.django_db
def test_sign_ups_from_one_ipv6_64_share_their_limit(client):
    system = TrailSystemFactory()
    answers = [
        client.post(
            f"/subscribe/{system.pk}",
            {"email": f"rider{n}@example.test"},
            REMOTE_ADDR=f"2001:db8:5:6::{n:x}",
        ).status_code
        for n in range(1, 13)
    ]
    assert answers == [200] * 10 + [429] * 2
    other = client.post(
        f"/subscribe/{system.pk}", {"email": "x@example.test"}, REMOTE_ADDR="2001:db8:5:7::1"
    )
    assert other.status_code == 200


# On a live server, from real loopback source addresses.


class FromAddress(HTTPAdapter):
    """Connections from a chosen local (source) address."""

    def __init__(self, address: str):
        self.address = address
        super().__init__()

    def init_poolmanager(self, *args, **kwargs):
        kwargs["source_address"] = (self.address, 0)
        super().init_poolmanager(*args, **kwargs)


def session_from(address: str) -> requests.Session:
    session = requests.Session()
    session.mount("http://", FromAddress(address))
    return session


@pytest.fixture
def base_url(live_server) -> str:
    return live_server.url.replace("localhost", "127.0.0.1")


def csrf_token(session: requests.Session, url: str) -> str:
    page = session.get(url).text
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)


def sign_up(session, base_url, system, email: str, client: str | None = None) -> int:
    token = csrf_token(session, f"{base_url}/map/{system.pk}")
    headers = {"X-Forwarded-For": client} if client else {}
    response = session.post(
        f"{base_url}/subscribe/{system.pk}",
        data={"email": email, "csrfmiddlewaretoken": token},
        headers=headers,
        allow_redirects=False,
    )
    return response.status_code


def twelve_sign_ups(base_url, source: str, clients: list[str]) -> list[int]:
    """Twelve riders' sign-ups to one system, sent from `source` naming `clients` in turn."""
    system = TrailSystemFactory()
    session = session_from(source)
    return [
        sign_up(session, base_url, system, f"rider{n}@example.test", client=clients[n % 12])
        for n in range(12)
    ]


TWELVE_CLIENTS = [f"198.51.100.{n}" for n in range(1, 13)]


@pytest.mark.django_db(transaction=True)
def test_twelve_clients_behind_the_proxy_each_sign_up_once(base_url):
    assert twelve_sign_ups(base_url, PROXY, TWELVE_CLIENTS) == [200] * 12
    assert PendingSubscription.objects.count() == 12


@pytest.mark.django_db(transaction=True)
def test_one_client_behind_the_proxy_signing_up_again_and_again_is_limited(base_url):
    assert twelve_sign_ups(base_url, PROXY, ["198.51.100.77"] * 12) == [200] * 10 + [429] * 2
    # Others behind the same proxy are not held back by that client.
    system = TrailSystemFactory()
    other = sign_up(session_from(PROXY), base_url, system, "x@example.test", client="198.51.100.78")
    assert other == 200


@pytest.mark.django_db(transaction=True)
def test_from_an_untrusted_address_the_header_changes_nothing(base_url):
    assert twelve_sign_ups(base_url, ELSEWHERE, TWELVE_CLIENTS) == [200] * 10 + [429] * 2


@pytest.mark.django_db(transaction=True)
def test_a_locked_password_form_never_refuses_an_id_token_sign_in_from_the_same_address(base_url):
    owner = TrailSystemFactory(owner=UserFactory(uid="owner-1", email="owner@example.test")).owner
    behind_the_nat = "198.51.100.20"
    guesser, manager = session_from(PROXY), session_from(PROXY)
    answers = []
    for n in range(6):
        token = csrf_token(guesser, f"{base_url}/admin/login/")
        answer = guesser.post(
            f"{base_url}/admin/login/",
            data={"username": owner.uid, "password": f"wrong-{n}", "csrfmiddlewaretoken": token},
            headers={"X-Forwarded-For": behind_the_nat},
            allow_redirects=False,
        )
        answers.append(answer.status_code)
    assert answers == [200] * 4 + [429] * 2  # the fifth failure locks the account's password

    token = csrf_token(manager, f"{base_url}/admin/login/")
    response = manager.post(
        f"{base_url}/admin/login/token/",
        data={
            "id_token": mint_emulator_token(owner.uid, owner.email),
            "csrfmiddlewaretoken": token,
        },
        headers={"X-Forwarded-For": behind_the_nat},
        allow_redirects=False,
    )
    assert response.status_code == 302
    assert manager.get(f"{base_url}/admin/", allow_redirects=False).status_code == 200


@pytest.mark.django_db
def test_metrics_answer_the_loopback_client_not_a_local_proxy_forwarding_others(client, settings):
    """A proxy on the same host forwards the public: its loopback address is not theirs."""
    settings.METRICS_TOKEN = ""
    forwarded = client.get("/metrics", REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR="203.0.113.9")
    assert forwarded.status_code == 403
    spoofed = client.get(
        "/metrics", REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR="127.0.0.1, 203.0.113.9"
    )
    assert spoofed.status_code == 403
    assert client.get("/metrics", REMOTE_ADDR="127.0.0.1").status_code == 200
