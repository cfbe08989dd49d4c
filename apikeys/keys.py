"""API key material: generation and digests. The plaintext never reaches the database."""

import hashlib
import secrets

from django.conf import settings

from apikeys.enums import KeyScope

# 32 random bytes = 256 bits, URL-safe, 43 characters.
KEY_RANDOM_BYTES = 32
VISIBLE_PREFIX_LENGTH = 11


def generate_key() -> str:
    return settings.API_KEY_PREFIX + secrets.token_urlsafe(KEY_RANDOM_BYTES)


def digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def is_api_key(credential: str) -> bool:
    return credential.startswith(settings.API_KEY_PREFIX)


def normalized_scopes(scopes: list[str] | None) -> list[str]:
    """Both scopes by default; read is always granted; canonical order."""
    wanted = set(scopes) if scopes is not None else {KeyScope.READ, KeyScope.WRITE}
    wanted.add(KeyScope.READ)
    return [str(scope) for scope in KeyScope.values if scope in wanted]
