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
from typing import BinaryIO
from urllib.parse import quote, unquote, urlsplit

import certifi
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
# An answer's status line or header field longer than this, or more fields, is no answer.
LINE_LIMIT = 8192
FIELDS_LIMIT = 100
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


class BadAnswer(Exception):
    """Not an HTTP/1.1 answer."""


def _line(reader: BinaryIO) -> bytes:
    line = reader.readline(LINE_LIMIT + 1)
    if not line.endswith(b"\n") or len(line) > LINE_LIMIT:
        raise BadAnswer(f"the answer ended or a line passed {LINE_LIMIT} bytes")
    return line.rstrip(b"\r\n")


def _head(reader: BinaryIO) -> tuple[bytes, int, dict[bytes, bytes]]:
    """The answer's version, status and header fields (names in lower case), after any
    interim (1xx) answer."""
    while True:
        version, _, rest = _line(reader).partition(b" ")
        code = rest[:3]
        if not version.startswith(b"HTTP/1.") or not code.isdigit():
            raise BadAnswer(f"not an HTTP/1 status line: {version[:20]!r}")
        fields = {}
        for _ in range(FIELDS_LIMIT):
            line = _line(reader)
            if not line:
                break
            name, _, value = line.partition(b":")
            fields[name.strip().lower()] = value.strip()
        else:
            raise BadAnswer(f"more than {FIELDS_LIMIT} header fields")
        if not 100 <= int(code) < 200:
            return version, int(code), fields


def _chunks(reader: BinaryIO, limit: int) -> tuple[bytes, bool]:
    """A chunked body's first `limit` bytes, and whether it was read to its end."""
    body = b""
    while True:
        size = int(_line(reader).partition(b";")[0], 16)
        if size == 0:
            while _line(reader):  # trailer fields
                pass
            return body, True
        if len(body) + size > limit:
            return body + reader.read(limit - len(body)), False
        body += reader.read(size)
        _line(reader)


def _answer(reader: BinaryIO, limit: int) -> tuple[int, dict[bytes, bytes], bytes, bool]:
    """Status, header fields, at most `limit` bytes of the body, and whether the connection
    may carry the next request (the body read to its end, and not closed by the service)."""
    version, status, fields = _head(reader)
    length = fields.get(b"content-length")
    if status in (204, 304):  # never a body
        body, whole = b"", True
    elif b"chunked" in fields.get(b"transfer-encoding", b"").lower():
        body, whole = _chunks(reader, limit)
    elif length is not None:
        size = int(length)
        body, whole = reader.read(min(size, limit)), size <= limit
    else:  # the body ends when the connection does
        body, whole = reader.read(limit), False
    closes = version == b"HTTP/1.0" or b"close" in fields.get(b"connection", b"").lower()
    return status, fields, body[:limit], whole and not closes


class PushSender:
    """Sends to one push service (`origin`) over one kept-alive connection, opened again when
    the service closed it: each message encrypted by pywebpush (aes128gcm), its request
    written and its answer read on the connection's socket directly (an HTTP/1.1 POST and its
    answer: a tenth of the CPU an HTTP library's request and response objects take), within a
    hard deadline from connecting to the answer's last byte (core.deadlines). The
    environment's proxy (for an https push service, through a CONNECT tunnel) and CA bundle
    are read once per sender."""

    def __init__(self, origin: str) -> None:
        parts = urlsplit(origin)
        self.origin = origin
        self.secure = parts.scheme == "https"
        self.host = parts.hostname or ""
        self.port = parts.port or (443 if self.secure else 80)
        self.host_header = parts.netloc.rpartition("@")[2]
        self.proxy = _proxy(self.host) if self.secure else None
        self.connection: HTTPConnection | None = None
        self.reader: BinaryIO | None = None

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
        self.reader = connection.sock.makefile("rb")
        return connection

    def _request(self, target: str, headers: dict[str, str], body: bytes) -> bytes:
        fields = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
        return (
            f"POST {quote(target, safe=TARGET_SAFE)} HTTP/1.1\r\nHost: {self.host_header}\r\n"
            f"{fields}Content-Length: {len(body)}\r\n\r\n"
        ).encode("latin-1") + body

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
        headers = {
            "Authorization": vapid.authorization(self.origin),
            "Content-Encoding": "aes128gcm",
            "TTL": str(ttl),
            "Urgency": urgency,
            "Topic": topic,
        }
        parts = urlsplit(endpoint)
        request = self._request(
            f"{parts.path or '/'}?{parts.query}" if parts.query else parts.path or "/",
            headers,
            body,
        )
        watchdog = Watchdog(self, TIMEOUT_SECONDS - (time.monotonic() - started))
        try:
            with watchdog:
                connection = self._connect()
                connection.sock.sendall(request)
                status, fields, answer, reusable = _answer(self.reader, ERROR_LIMIT)
        except (HTTPError, OSError, ValueError, BadAnswer) as error:
            self.close()
            late = f"no answer within {TIMEOUT_SECONDS:g} s"
            text = late if watchdog.fired else f"{type(error).__name__}: {error}"[:500]
            return Outcome(retryable=True, error=text, duration_ms=_since(started))
        if watchdog.fired or not reusable:
            self.close()
        ok = 200 <= status < 300
        error = "" if ok else answer.decode("utf-8", errors="replace").replace("\x00", "")
        retry_after = fields.get(b"retry-after", b"").decode("latin-1")
        return http_outcome(status, error[:500], _retry_after(retry_after), _since(started))

    def close(self) -> None:
        if self.reader is not None:
            self.reader.close()
            self.reader = None
        if self.connection is not None:
            self.connection.close()
            self.connection = None

    @property
    def sock(self) -> socket.socket | None:
        """What the watchdog shuts down at the deadline."""
        return self.connection.sock if self.connection is not None else None


def _since(started: float) -> int:
    return int((time.monotonic() - started) * 1000)
