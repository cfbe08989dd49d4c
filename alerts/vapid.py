"""The service's VAPID identity (RFC 8292): the key pair push services know our messages
by, and the `vapid t=..., k=...` Authorization header py-vapid's Vapid02 writes, signed
once per push service origin and reused until shortly before it expires."""

import base64
import threading
import time
from functools import cache

from cryptography.hazmat.primitives import serialization
from django.conf import settings
from py_vapid import Vapid02

# A signed header is valid this long (RFC 8292 allows at most 24 hours) ...
TOKEN_LIFETIME_SECONDS = 12 * 3600
# ... and is signed anew once it has less than this left.
TOKEN_RENEW_SECONDS = 3600

_lock = threading.Lock()
_headers: dict[str, tuple[float, str]] = {}


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def generate_keys() -> tuple[str, str]:
    """A new pair: the raw private key and the uncompressed public point, base64url."""
    vapid = Vapid02()
    vapid.generate_keys()
    private = vapid.private_key.private_numbers().private_value.to_bytes(32, "big")
    return b64url(private), public_key_of(vapid)


def public_key_of(vapid: Vapid02) -> str:
    point = vapid.public_key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return b64url(point)


def configured() -> bool:
    return bool(settings.VAPID_PRIVATE_KEY)


@cache
def _vapid(private_key: str) -> Vapid02:
    return Vapid02.from_string(private_key)


def signer() -> Vapid02:
    return _vapid(settings.VAPID_PRIVATE_KEY)


def public_key() -> str:
    """What browsers pass to pushManager.subscribe as applicationServerKey."""
    return public_key_of(signer())


def authorization(audience: str) -> str:
    """The Authorization header for a push service origin (`https://host[:port]`)."""
    now = time.time()
    with _lock:
        expires, header = _headers.get(audience, (0.0, ""))
        if expires - now > TOKEN_RENEW_SECONDS:
            return header
        expires = int(now) + TOKEN_LIFETIME_SECONDS
        claims = {"aud": audience, "exp": expires, "sub": settings.VAPID_SUBJECT}
        header = signer().sign(claims)["Authorization"]
        _headers[audience] = (expires, header)
        return header
