"""django-axes' lockout parameters: per client address always, per account when one is named.

A sign-in by ID token or e-mailed link that fails names no account; counting it under an
empty username would lock every such sign-in out for everyone, so it counts per address only.
"""


def lockout_parameters(request_or_attempt, credentials: dict | None = None) -> list[str]:
    username = (credentials or {}).get("username") or getattr(request_or_attempt, "username", None)
    return ["ip_address", "username"] if username else ["ip_address"]
