"""django-axes' rules: what it counts, and per what.

Only passwords are counted and locked out. An ID token is signed by the identity provider and
an e-mailed link by the service: neither can be guessed, so a sign-in by either is never
refused because someone failed passwords from the same address (behind a resort's NAT, that
would lock every manager out on a powder morning).

Passwords are counted per client address always, and per account when one is named.
"""


def not_a_password(request, credentials: dict | None = None) -> bool:
    """AXES_WHITELIST_CALLABLE: a sign-in that sends no password is neither checked against
    the lockouts nor counted."""
    return (credentials or {}).get("password") is None


def lockout_parameters(request_or_attempt, credentials: dict | None = None) -> list[str]:
    username = (credentials or {}).get("username") or getattr(request_or_attempt, "username", None)
    return ["ip_address", "username"] if username else ["ip_address"]
