"""Firebase identities: verifying an ID token and the account it names.

Shared by every interface that accepts ID tokens (the management API's bearer tokens, the web
app's sign-in), so a token is accepted or refused the same way everywhere.
"""

import threading
import time

import firebase_admin
from django.conf import settings
from firebase_admin import auth as firebase_auth

from apikeys.models import User
from apikeys.services import account_for_identity
from core.errors import NotAuthenticated
from core.ids import CONTROL_CHARACTER
from core.limits import ID_TOKEN_CLOCK_SKEW_SECONDS

FIREBASE_APP_NAME = "trails"
_firebase_app: firebase_admin.App | None = None
_firebase_app_lock = threading.Lock()


def firebase_app() -> firebase_admin.App:
    """One app for the process, so firebase-admin's certificate cache is reused."""
    global _firebase_app
    with _firebase_app_lock:
        if _firebase_app is None:
            try:
                _firebase_app = firebase_admin.get_app(FIREBASE_APP_NAME)
            except ValueError:
                _firebase_app = firebase_admin.initialize_app(
                    options={"projectId": settings.FIREBASE_PROJECT_ID}, name=FIREBASE_APP_NAME
                )
    return _firebase_app


def verify_id_token(token: str) -> dict:
    """Claims of a valid ID token; 401 invalid_token otherwise.

    A failure to fetch Google's certificates is not the caller's fault: it propagates and
    answers a logged 500 instead of telling the client its token is bad.
    """
    try:
        claims = firebase_auth.verify_id_token(
            token, app=firebase_app(), clock_skew_seconds=ID_TOKEN_CLOCK_SKEW_SECONDS
        )
    except (ValueError, firebase_auth.InvalidIdTokenError) as error:
        raise NotAuthenticated("invalid_token", "ID token is invalid or expired.") from error
    # The emulator path of firebase-admin checks neither signature nor dates.
    now = time.time()
    exp, iat = claims.get("exp"), claims.get("iat")
    if not _is_number(exp) or exp <= now:
        raise NotAuthenticated("invalid_token", "ID token is invalid or expired.")
    if not _is_number(iat) or iat > now + ID_TOKEN_CLOCK_SKEW_SECONDS:
        raise NotAuthenticated("invalid_token", "ID token is issued in the future.")
    if not all(_is_plain_text(claims.get(name, "")) for name in ("uid", "email")):
        raise NotAuthenticated("invalid_token", "ID token names an impossible account.")
    return claims


def _is_plain_text(value) -> bool:
    """A string without control characters (a NUL cannot even be stored)."""
    return isinstance(value, str) and not CONTROL_CHARACTER.search(value)


def _is_number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def user_for_claims(claims: dict) -> User:
    """The account a verified token names (made or brought up to date by the service)."""
    return account_for_identity(
        uid=claims["uid"],
        email=claims.get("email") or "",
        email_verified=claims.get("email_verified") is True,
    )
