"""django-axes' rules: what it counts, and per what.

Only passwords are counted and locked out. An ID token is signed by the identity provider and
an e-mailed link by the service: neither can be guessed, so a sign-in by either is never
refused because someone failed passwords (behind a resort's NAT, that would lock every manager
out on a powder morning).

Wrong passwords are counted per account, from any address (AXES_FAILURE_LIMIT of them lock
that account's password form), and per client address, across accounts
(AXES_ADDRESS_FAILURE_LIMIT lock the address's). A name nobody holds locks only that name. A
success clears nothing: otherwise a guesser with an account of their own could sign in between
guesses and start counting again.
"""

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_lockout_parameters
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Sum


def not_a_password(request, credentials: dict | None = None) -> bool:
    """AXES_WHITELIST_CALLABLE: a sign-in that sends no password is neither checked against
    the lockouts nor counted."""
    return (credentials or {}).get("password") is None


def username_of(request, credentials: dict | None = None) -> str | None:
    """AXES_USERNAME_CALLABLE: the account a password was tried for, whatever the form names
    the field (Django's admin form sends `username`; the account's own field is `uid`)."""
    fields = ("username", get_user_model().USERNAME_FIELD)
    for source in (credentials or {}, getattr(request, "POST", None) or {}):
        for name in fields:
            if value := source.get(name):
                return str(value)
    return None


def lockout_parameters(request_or_attempt, credentials: dict | None = None) -> list[str]:
    username = username_of(request_or_attempt, credentials) or getattr(
        request_or_attempt, "username", None
    )
    return ["username", "ip_address"] if username else ["ip_address"]


class PasswordLockouts(AxesDatabaseHandler):
    """axes' database handler, with a limit of its own for each thing counted."""

    def get_failures(self, request, credentials: dict | None = None) -> int:
        """The failures that count against this sign-in: the account's, or the whole limit
        when its address has failed too often across accounts."""
        parameters = get_lockout_parameters(request, credentials)
        failures = {
            parameter: attempts.aggregate(total=Sum("failures_since_start"))["total"] or 0
            for parameter, attempts in zip(
                parameters, self.get_user_attempts(request, credentials), strict=True
            )
        }
        account = failures.get("username", 0)
        if failures.get("ip_address", 0) >= settings.AXES_ADDRESS_FAILURE_LIMIT:
            return max(account, settings.AXES_FAILURE_LIMIT)
        return account
