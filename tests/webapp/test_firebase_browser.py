"""The login page's Firebase e-mail and password sign-in, with the real Firebase Web SDK in
Chromium. Google's Identity Toolkit (the only Firebase service the SDK calls for it) is faked at
its HTTP boundary with page.route; it answers with an emulator ID token, which this test
server accepts as the API does."""

import json
from urllib.parse import urlsplit

import pytest
from django.contrib.sessions.models import Session

from apikeys.services import invite_member
from apikeys.tokens import mint_emulator_token
from core.actors import Actor, Via
from tests.factories import TrailSystemFactory

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct horse battery staple"
FIREBASE_UID = "firebase-uid-of-ann"
IDENTITY_TOOLKIT = "https://identitytoolkit.googleapis.com"
CORS = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Headers": "*",
    "Access-Control-Allow-Methods": "POST, GET, OPTIONS",
}


class FakeIdentityToolkit:
    """Answers the SDK's calls as Google does for one account (Ann, password PASSWORD) and
    records every call to a Firebase origin."""

    def __init__(self, email: str):
        self.email = email
        self.calls: list[str] = []

    def __call__(self, route) -> None:
        request = route.request
        if request.method == "OPTIONS":
            route.fulfill(status=204, headers=CORS)
            return
        path = urlsplit(request.url).path
        self.calls.append(f"{urlsplit(request.url).hostname}{path}")
        if path == "/v1/accounts:signInWithPassword":
            self.sign_in(route, request.post_data_json)
        elif path == "/v1/accounts:lookup":
            self.answer(route, 200, {"users": [self.account()]})
        else:
            self.answer(route, 404, {"error": {"code": 404, "message": "NOT_FOUND"}})

    def sign_in(self, route, body: dict) -> None:
        if body.get("email") != self.email or body.get("password") != PASSWORD:
            error = {"code": 400, "message": "INVALID_LOGIN_CREDENTIALS", "errors": []}
            self.answer(route, 400, {"error": error})
            return
        self.answer(
            route,
            200,
            {
                "kind": "identitytoolkit#VerifyPasswordResponse",
                "localId": FIREBASE_UID,
                "email": self.email,
                "displayName": "",
                "idToken": mint_emulator_token(FIREBASE_UID, self.email),
                "registered": True,
                "refreshToken": "fake-refresh-token",
                "expiresIn": "3600",
            },
        )

    def account(self) -> dict:
        return {
            "localId": FIREBASE_UID,
            "email": self.email,
            "emailVerified": True,
            "providerUserInfo": [
                {"providerId": "password", "email": self.email, "rawId": self.email}
            ],
            "lastLoginAt": "1700000000000",
            "createdAt": "1700000000000",
        }

    @staticmethod
    def answer(route, status: int, body: dict) -> None:
        route.fulfill(status=status, headers=CORS, body=json.dumps(body))


@pytest.fixture
def firebase_on(settings):
    """Firebase sign-in on the login page, talking to Google (not to the emulator)."""
    settings.FIREBASE_WEB_API_KEY = "fake-web-api-key"
    settings.FIREBASE_AUTH_DOMAIN = "demo-trails.firebaseapp.com"
    settings.FIREBASE_WEB_EMULATOR_HOST = ""


@pytest.fixture
def toolkit(page):
    fake = FakeIdentityToolkit("ann@example.test")
    page.route(f"{IDENTITY_TOOLKIT}/**", fake)
    page.route("https://securetoken.googleapis.com/**", fake)
    return fake


@pytest.fixture
def invited_ann():
    """Ann was invited as Trustee of Bear Creek Nordic before she had a Firebase account."""
    system = TrailSystemFactory(name="Bear Creek Nordic")
    invite_member(
        system=system,
        email="ann@example.test",
        role="Trustee",
        actor=Actor(system.owner.uid, Via.WEB_APP),
    )
    return system


def csp_violations(page) -> list[str]:
    messages: list[str] = []
    page.on(
        "console",
        lambda m: messages.append(m.text) if "Content Security Policy" in m.text else None,
    )
    return messages


def sign_in_with_password(page, live_server, password: str) -> None:
    page.goto(f"{live_server.url}/admin/login/?next=/admin/")
    page.fill("#firebase-email", "ann@example.test")
    page.fill("#firebase-password", password)
    page.click("#firebase-form input[type=submit]")


def test_a_manager_signs_in_with_email_and_password(
    live_server, page, screenshot, firebase_on, toolkit, invited_ann
):
    violations = csp_violations(page)
    sign_in_with_password(page, live_server, PASSWORD)
    page.wait_for_selector("#my-systems")
    # Her invitation's account became her Firebase account: she is Trustee of the system.
    assert "Bear Creek Nordic" in page.inner_text("#my-systems")
    assert "Trustee" in page.inner_text("#my-systems")
    session = Session.objects.get()
    assert session.get_decoded()["_auth_user_id"] == FIREBASE_UID
    assert toolkit.calls == [
        "identitytoolkit.googleapis.com/v1/accounts:signInWithPassword",
        "identitytoolkit.googleapis.com/v1/accounts:lookup",
    ]
    assert violations == []
    screenshot("webapp-firebase-signed-in")


def test_a_wrong_password_says_so_on_the_login_page(
    live_server, page, screenshot, firebase_on, toolkit, invited_ann
):
    sign_in_with_password(page, live_server, "not my password")
    page.wait_for_selector("#firebase-error:not([hidden])")
    assert page.inner_text("#firebase-error") == "Wrong e-mail address or password."
    assert urlsplit(page.url).path == "/admin/login/"
    assert not Session.objects.exists()
    # She may try again at once.
    assert page.is_enabled("#firebase-form input[type=submit]")
    screenshot("webapp-firebase-wrong-password")


def test_the_login_page_may_reach_identity_toolkit_and_nothing_else(
    live_server, page, firebase_on, toolkit
):
    violations = csp_violations(page)
    response = page.goto(f"{live_server.url}/admin/login/")
    policy = dict(
        directive.strip().split(" ", 1)
        for directive in response.headers["content-security-policy"].split(";")
        if directive.strip()
    )
    assert policy["connect-src"] == f"'self' {IDENTITY_TOOLKIT}"
    refused = page.evaluate(
        """() => fetch("https://securetoken.googleapis.com/v1/token", {method: "POST"})
                 .then(() => false, () => true)"""
    )
    assert refused and violations and toolkit.calls == []
    # Other pages may reach only this site.
    other = page.goto(f"{live_server.url}/admin/login/link/use/")
    assert "identitytoolkit" not in other.headers["content-security-policy"]
