"""Web Push (RFC 8030/8291/8292) through pywebpush: which endpoints a subscription may name,
and sending one encrypted (aes128gcm) message with its TTL, Urgency and Topic."""

import time
from email.utils import parsedate_to_datetime
from urllib.parse import urlsplit

import requests
from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings
from pywebpush import WebPusher, WebPushException

from alerts import vapid
from alerts.outcomes import Outcome
from core.errors import Invalid

# The push services of the browsers riders use: Chrome and Android (Google), Firefox
# (Mozilla), Safari and iOS (Apple), Edge (Microsoft, any *.notify.windows.com).
KNOWN_PUSH_HOSTS = frozenset(
    {
        "fcm.googleapis.com",
        "push.services.mozilla.com",
        "updates.push.services.mozilla.com",
        "web.push.apple.com",
    }
)
KNOWN_PUSH_SUFFIXES = (".notify.windows.com",)
LOOPBACK = "127.0.0.1"
# No complete answer within this many seconds is a failed attempt.
TIMEOUT_SECONDS = 5.0


def _known_host(host: str) -> bool:
    return (
        host in KNOWN_PUSH_HOSTS
        or host.endswith(KNOWN_PUSH_SUFFIXES)
        or host in settings.WEB_PUSH_EXTRA_HOSTS
    )


def check_subscription(subscription) -> dict:
    """The subscription as PushSubscription.toJSON() gives it, checked: an https endpoint on
    a push service's host (http only on 127.0.0.1, when WEB_PUSH_EXTRA_HOSTS lists it), a
    P-256 public key and a 16-byte auth secret."""
    if not isinstance(subscription, dict):
        raise Invalid("invalid_field", "must be a push subscription object.", field="subscription")
    endpoint = subscription.get("endpoint")
    keys = subscription.get("keys")
    if not isinstance(endpoint, str) or not endpoint or len(endpoint) > 2000:
        raise Invalid("invalid_field", "an https URL is required.", field="subscription.endpoint")
    try:
        parts = urlsplit(endpoint)
        host = (parts.hostname or "").lower()
        port_is_valid = parts.port is None or parts.port > 0
    except ValueError:
        raise Invalid("invalid_field", "is not a URL.", field="subscription.endpoint") from None
    secure = parts.scheme == "https"
    local_http = parts.scheme == "http" and host == LOOPBACK
    if not (secure or local_http) or not port_is_valid or not _known_host(host):
        raise Invalid(
            "invalid_field",
            "must be https on a known push service's host (Google, Mozilla, Apple, "
            "Microsoft, or one of the operator's WEB_PUSH_EXTRA_HOSTS).",
            field="subscription.endpoint",
        )
    if not isinstance(keys, dict):
        raise Invalid("missing_field", "p256dh and auth are required.", field="subscription.keys")
    p256dh, auth = keys.get("p256dh"), keys.get("auth")
    if not _is_point(p256dh):
        raise Invalid(
            "invalid_field",
            "must be an uncompressed P-256 public key, base64url.",
            field="subscription.keys.p256dh",
        )
    if not _decodes_to(auth, 16):
        raise Invalid(
            "invalid_field", "must be 16 bytes, base64url.", field="subscription.keys.auth"
        )
    return {"endpoint": endpoint, "keys": {"p256dh": p256dh, "auth": auth}}


def _decodes_to(text, length: int) -> bytes | None:
    if not isinstance(text, str) or len(text) > 200:
        return None
    try:
        raw = vapid.b64url_decode(text)
    except ValueError:
        return None
    return raw if len(raw) == length else None


def _is_point(text) -> bool:
    raw = _decodes_to(text, 65)
    if raw is None:
        return False
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), raw)
    except ValueError:
        return False
    return True


def origin(endpoint: str) -> str:
    """The push service's origin: the VAPID audience, and the alert's queue (compartment)."""
    parts = urlsplit(endpoint)
    return f"{parts.scheme}://{parts.netloc}"


def http_outcome(status: int, error: str, retry_after: float | None, duration_ms: int) -> Outcome:
    """A push service's answer: 2xx sent; 404 or 410 the subscription is gone (expired, or
    the rider unsubscribed); 429 or 5xx the service is failing (its queue backs off); any
    other status refuses this message only."""
    return Outcome(
        ok=200 <= status < 300,
        gone=status in (404, 410),
        retryable=status == 429 or status >= 500,
        status=status,
        error=error,
        retry_after=retry_after,
        duration_ms=duration_ms,
    )


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        return max(parsedate_to_datetime(value).timestamp() - time.time(), 0.0)
    except (TypeError, ValueError):
        return None


class PushSender:
    """Sends to one push service (`origin`) over one kept-alive connection."""

    def __init__(self, origin: str) -> None:
        self.session = requests.Session()
        # The environment's proxy and CA bundle for this push service, read once: requests
        # otherwise scans os.environ on every request (a fifth of a message's CPU).
        found = self.session.merge_environment_settings(origin, {}, None, None, None)
        self.session.proxies.update(found["proxies"])
        self.session.verify = found["verify"]
        self.session.trust_env = False

    def send(
        self, *, endpoint: str, p256dh: str, auth: str, payload: bytes, ttl: int, urgency: str,
        topic: str,
    ) -> Outcome:  # fmt: skip
        headers = {
            "Authorization": vapid.authorization(origin(endpoint)),
            "Urgency": urgency,
            "Topic": topic,
        }
        subscription = {"endpoint": endpoint, "keys": {"p256dh": p256dh, "auth": auth}}
        started = time.monotonic()
        try:
            pusher = WebPusher(subscription, requests_session=self.session)
            response = pusher.send(payload, headers, ttl=ttl, timeout=TIMEOUT_SECONDS)
        except (requests.RequestException, WebPushException) as error:
            return Outcome(retryable=True, error=str(error)[:500], duration_ms=_since(started))
        error = "" if 200 <= response.status_code < 300 else response.text[:500]
        return http_outcome(
            response.status_code,
            error,
            _retry_after(response.headers.get("Retry-After")),
            _since(started),
        )

    def close(self) -> None:
        self.session.close()


def _since(started: float) -> int:
    return int((time.monotonic() - started) * 1000)
