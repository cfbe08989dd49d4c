"""A push service stand-in (a local HTTP server) and a browser's subscription to it: the
test holds the subscription's private key and auth secret, as the browser would, so it can
check each request as a push service and a browser together do: the VAPID JWT (RFC 8292)
verified against the key /alerts/vapid-public-key gives, and the aes128gcm payload
(RFC 8291) decrypted."""

import base64
import json
import os
import time
from dataclasses import dataclass

import http_ece
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from tests.fake_http import FakeServer, Recorded, Responder


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Subscription:
    """What PushManager.subscribe gives a page, with the keys only the browser holds."""

    endpoint: str
    private_key: ec.EllipticCurvePrivateKey
    auth: bytes

    @classmethod
    def to(cls, server: FakeServer, name: str = "") -> "Subscription":
        endpoint = f"{server.url}/push/{name or b64url(os.urandom(12))}"
        return cls(endpoint, ec.generate_private_key(ec.SECP256R1()), os.urandom(16))

    def json(self) -> dict:
        point = self.private_key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {
            "endpoint": self.endpoint,
            "keys": {"p256dh": b64url(point), "auth": b64url(self.auth)},
        }

    def decrypt(self, request: Recorded) -> dict:
        assert header(request, "Content-Encoding") == "aes128gcm"
        plain = http_ece.decrypt(
            request.body, private_key=self.private_key, auth_secret=self.auth, version="aes128gcm"
        )
        return json.loads(plain)


def header(request: Recorded, name: str) -> str:
    """A request header, whatever case the client wrote its name in (HTTP's rule)."""
    return {key.lower(): value for key, value in request.headers.items()}[name.lower()]


def verified_claims(request: Recorded, public_key: str) -> dict:
    """The JWT's claims, once its ES256 signature is checked against `public_key` (the
    service's, as /alerts/vapid-public-key gives it) and `k` is found to be that key."""
    scheme, _, params = header(request, "Authorization").partition(" ")
    assert scheme == "vapid"
    parts = dict(part.strip().split("=", 1) for part in params.split(","))
    assert parts["k"] == public_key
    jwt_header, claims, signature = parts["t"].split(".")
    raw = unb64url(signature)
    key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(public_key))
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    try:
        key.verify(der, f"{jwt_header}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise AssertionError("the VAPID JWT's signature does not verify") from None
    assert json.loads(unb64url(jwt_header)) == {"typ": "JWT", "alg": "ES256"}
    decoded = json.loads(unb64url(claims))
    assert decoded["exp"] > time.time()
    return decoded


def accepting() -> Responder:
    return lambda request: (201, b"")
