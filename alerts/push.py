"""Web Push (RFC 8030/8291/8292) through pywebpush: which endpoints a subscription may name,
and sending one encrypted (aes128gcm) message with its TTL, Urgency and Topic."""

import os
import socket
import ssl
import time
import urllib.request
from base64 import b64encode
from email.utils import parsedate_to_datetime
from functools import cache
from urllib.parse import quote, unquote, urlsplit

import certifi
import h11
from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings
from pywebpush import WebPusher, WebPushException
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.exceptions import HTTPError
from urllib3.util.ssl_ import create_urllib3_context

from alerts import vapid
from alerts.outcomes import Outcome
from core.deadlines import Watchdog
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
# No complete answer within this many seconds (connecting, sending and reading) is a failed
# attempt.
TIMEOUT_SECONDS = 5.0
# At most this much of a refusal's body is read and kept.
ERROR_LIMIT = 500
# An answer's head (status line and header fields) longer than this is no answer.
HEAD_LIMIT = 16 * 1024
READ_SIZE = 16 * 1024
# What an endpoint's path and query keep as they are (anything else is percent-encoded).
TARGET_SAFE = "/?=&%:@!$'()*+,;~"


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


def _tls_context() -> ssl.SSLContext:
    """Certificates checked as requests checks them: REQUESTS_CA_BUNDLE or CURL_CA_BUNDLE when
    set, else certifi's bundle; made once per process (loading a bundle takes milliseconds)."""
    bundle = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE")
    return _context_for(bundle or certifi.where())


@cache
def _context_for(bundle: str) -> ssl.SSLContext:
    context = create_urllib3_context(cert_reqs=ssl.CERT_REQUIRED)
    context.load_verify_locations(cafile=bundle)
    return context


def _proxy(host: str) -> tuple[str, int, dict[str, str]] | None:
    """The environment's proxy (HTTPS_PROXY, ALL_PROXY, NO_PROXY) for a push service's host:
    its address and port, and its Proxy-Authorization when the URL has a user."""
    if urllib.request.proxy_bypass(host):
        return None
    proxies = urllib.request.getproxies()
    url = proxies.get("https") or proxies.get("all")
    if not url:
        return None
    proxy = urlsplit(url if "://" in url else f"http://{url}")
    headers = {}
    if proxy.username:
        credentials = f"{unquote(proxy.username)}:{unquote(proxy.password or '')}"
        headers["Proxy-Authorization"] = f"Basic {b64encode(credentials.encode()).decode()}"
    return proxy.hostname or "", proxy.port or 80, headers


class PushSender:
    """Sends to one push service (`origin`) over one kept-alive connection, opened again when
    the service closed it: each message encrypted by pywebpush (aes128gcm), its request and
    answer framed by h11 on the connection's socket (an HTTP library's request and response
    objects took ten times its CPU per message), within a hard deadline from connecting to the
    answer's last byte (core.deadlines). The environment's proxy (for an https push service,
    through a CONNECT tunnel) and CA bundle are read once per sender."""

    def __init__(self, origin: str) -> None:
        parts = urlsplit(origin)
        self.origin = origin
        self.secure = parts.scheme == "https"
        self.host = parts.hostname or ""
        self.port = parts.port or (443 if self.secure else 80)
        self.host_header = parts.netloc.rpartition("@")[2]
        self.proxy = _proxy(self.host) if self.secure else None
        self.connection: HTTPConnection | None = None
        self.http = h11.Connection(h11.CLIENT, max_incomplete_event_size=HEAD_LIMIT)

    def _connect(self) -> HTTPConnection:
        """The kept-alive connection, or a new one (its socket's timeout bounds the connect;
        the watchdog, already armed, the tunnel and TLS handshake)."""
        if self.connection is not None and self.connection.is_connected:
            return self.connection
        self.close()
        if not self.secure:
            connection = HTTPConnection(self.host, self.port, timeout=TIMEOUT_SECONDS)
        elif self.proxy is None:
            connection = HTTPSConnection(
                self.host, self.port, timeout=TIMEOUT_SECONDS, ssl_context=_tls_context()
            )
        else:
            proxy_host, proxy_port, proxy_headers = self.proxy
            connection = HTTPSConnection(
                proxy_host, proxy_port, timeout=TIMEOUT_SECONDS, ssl_context=_tls_context()
            )
            connection.set_tunnel(self.host, self.port, headers=proxy_headers)
        self.connection = connection
        connection.connect()
        self.http = h11.Connection(h11.CLIENT, max_incomplete_event_size=HEAD_LIMIT)
        return connection

    def _exchange(
        self, target: str, headers: list[tuple[str, str]], body: bytes
    ) -> tuple[h11.Response, bytes, bool]:
        """The answer to one POST, at most ERROR_LIMIT bytes of its body, and whether the
        connection may carry the next request (the answer read whole, not closed by the
        service)."""
        sock = self._connect().sock
        http = self.http
        fields = [("Host", self.host_header), *headers, ("Content-Length", str(len(body)))]
        request = h11.Request(method="POST", target=target, headers=fields)
        sock.sendall(
            http.send(request) + http.send(h11.Data(data=body)) + http.send(h11.EndOfMessage())
        )
        response, answer = None, b""
        while True:
            event = http.next_event()
            if event is h11.NEED_DATA:
                http.receive_data(sock.recv(READ_SIZE))
            elif isinstance(event, h11.Response):
                response = event
            elif isinstance(event, h11.Data):
                answer += event.data
                if len(answer) > ERROR_LIMIT:
                    return response, answer[:ERROR_LIMIT], False
            elif isinstance(event, h11.EndOfMessage):
                break
            elif isinstance(event, h11.ConnectionClosed):
                raise h11.RemoteProtocolError("the push service closed the connection")
        if http.our_state is h11.DONE and http.their_state is h11.DONE:
            http.start_next_cycle()
            return response, answer, True
        return response, answer, False

    def send(
        self, *, endpoint: str, p256dh: str, auth: str, payload: bytes, ttl: int, urgency: str,
        topic: str,
    ) -> Outcome:  # fmt: skip
        started = time.monotonic()
        subscription = {"endpoint": endpoint, "keys": {"p256dh": p256dh, "auth": auth}}
        try:
            body = WebPusher(subscription).encode(payload, "aes128gcm")["body"]
        except (ValueError, WebPushException) as error:  # keys no browser would give
            return Outcome(error=f"not encrypted: {error}"[:500], duration_ms=_since(started))
        headers = [
            ("Authorization", vapid.authorization(self.origin)),
            ("Content-Encoding", "aes128gcm"),
            ("TTL", str(ttl)),
            ("Urgency", urgency),
            ("Topic", topic),
        ]
        parts = urlsplit(endpoint)
        path = f"{parts.path or '/'}?{parts.query}" if parts.query else parts.path or "/"
        target = quote(path, safe=TARGET_SAFE)
        watchdog = Watchdog(self, TIMEOUT_SECONDS - (time.monotonic() - started))
        try:
            with watchdog:
                response, answer, reusable = self._exchange(target, headers, body)
        except (HTTPError, OSError, ValueError, h11.ProtocolError) as error:
            self.close()
            late = f"no answer within {TIMEOUT_SECONDS:g} s"
            text = late if watchdog.fired else f"{type(error).__name__}: {error}"[:500]
            return Outcome(retryable=True, error=text, duration_ms=_since(started))
        if watchdog.fired or not reusable:
            self.close()
        status = response.status_code
        ok = 200 <= status < 300
        error = "" if ok else answer.decode("utf-8", errors="replace").replace("\x00", "")
        fields = dict(response.headers)
        retry_after = fields.get(b"retry-after", b"").decode("latin-1")
        return http_outcome(status, error[:500], _retry_after(retry_after), _since(started))

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None

    @property
    def sock(self) -> socket.socket | None:
        """What the watchdog shuts down at the deadline."""
        return self.connection.sock if self.connection is not None else None


def _since(started: float) -> int:
    return int((time.monotonic() - started) * 1000)
