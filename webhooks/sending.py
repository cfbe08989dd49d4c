"""One HTTP request per attempt, signed per the Standard Webhooks specification by its
reference package (`standardwebhooks`): headers webhook-id, webhook-timestamp (the attempt's
time) and webhook-signature (`v1,<base64 HMAC-SHA256>`; two, space-separated, for 24 hours
after a rotation, the new secret's first).

The connection goes to the address webhooks.targets checked, with the URL's host in the Host
header and in TLS (server name and certificate check), so a second DNS answer can never send
it elsewhere. Redirects are not followed (a 3xx is a failure like any non-2xx answer); at
most 1 KB of the answer's body is read and kept.

Each attempt has a hard deadline: 5 seconds from the connection's start to the last byte read,
however the receiver trickles (core.deadlines' watchdog).
"""

import http.client
import socket
import time
from dataclasses import dataclass
from datetime import UTC, datetime

from standardwebhooks import Webhook
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.exceptions import HTTPError, NewConnectionError, SSLError, TimeoutError

from core.deadlines import Watchdog
from webhooks.targets import RefusedTarget, checked_address, parse

TIMEOUT_SECONDS = 5.0
BODY_LIMIT = 1024
USER_AGENT = "trail-status-webhooks/1"


@dataclass(frozen=True)
class Answer:
    """What one attempt got: the status code (None when no answer came), how long it took,
    what went wrong, and the first bytes of the body."""

    status: int | None
    duration_ms: int
    error: str = ""
    body: str = ""

    @property
    def ok(self) -> bool:
        return not self.error and self.status is not None and 200 <= self.status < 300

    @property
    def unreachable(self) -> bool:
        """No answer at all (refused target, no connection, timeout): the endpoint's other
        messages would wait as long, so they wait for the next retry instead."""
        return self.status is None


def signature(signers: list[Webhook], message_id: str, timestamp: datetime, body: str) -> str:
    return " ".join(signer.sign(message_id, timestamp, body) for signer in signers)


def headers_for(signers: list[Webhook], message_id: str, body: str, now: datetime) -> dict:
    return {
        "content-type": "application/json",
        "user-agent": USER_AGENT,
        "webhook-id": message_id,
        "webhook-timestamp": str(int(now.timestamp())),
        "webhook-signature": signature(signers, message_id, now.astimezone(UTC), body),
    }


def _describe(error: Exception) -> str:
    if isinstance(error, NewConnectionError):  # a ConnectTimeoutError too, in urllib3
        return f"no connection: {error.__context__ or error}"
    if isinstance(error, TimeoutError | socket.timeout):
        return _late()
    if isinstance(error, SSLError):
        return f"TLS failed: {error}"
    return f"{type(error).__name__}: {error}"


def _late() -> str:
    return f"no answer within {TIMEOUT_SECONDS:g} s"


def _text(body: bytes) -> str:
    # PostgreSQL text holds no NUL character.
    return body.decode("utf-8", errors="replace").replace("\x00", "")


class Sender:
    """The requests of one batch to one endpoint: the URL checked once, then one kept-alive
    connection to the checked address. A URL that may not be sent to makes every request of
    the batch a failed attempt that says why."""

    def __init__(self, url: str, secrets: list[str]):
        self.signers = [Webhook(secret) for secret in secrets]
        self.refusal = ""
        self.address = ""
        self.connection: HTTPConnection | None = None
        try:
            self.target = parse(url)
            self.address = checked_address(self.target) or self.target.host
        except RefusedTarget as refusal:
            self.refusal = f"refused: {refusal}"

    def _connect(self) -> HTTPConnection:
        """The kept-alive connection, or a new one (connected within the attempt's time)."""
        if self.connection is not None and self.connection.is_connected:
            return self.connection
        self.close()
        target = self.target
        if target.scheme == "https":
            connection = HTTPSConnection(
                self.address,
                target.port,
                timeout=TIMEOUT_SECONDS,
                server_hostname=target.host,
                assert_hostname=target.host,
                cert_reqs="CERT_REQUIRED",
            )
        else:
            connection = HTTPConnection(self.address, target.port, timeout=TIMEOUT_SECONDS)
        self.connection = connection
        connection.connect()
        return connection

    def post(self, message_id: str, body: str) -> Answer:
        if self.refusal:
            return Answer(None, 0, self.refusal)
        headers = headers_for(self.signers, message_id, body, datetime.now(UTC))
        headers["host"] = self.target.host_header
        started = time.monotonic()
        watchdog = None
        try:
            connection = self._connect()
            watchdog = Watchdog(connection, TIMEOUT_SECONDS - (time.monotonic() - started))
            with watchdog:
                connection.request(
                    "POST", self.target.path, body=body.encode(), headers=headers,
                    preload_content=False,
                )  # fmt: skip
                response = connection.getresponse()
                head = response.read(BODY_LIMIT)
            if response.length_remaining != 0:
                self.close()  # the rest is not read: the connection cannot be reused
        except (HTTPError, OSError, http.client.HTTPException) as error:
            self.close()
            late = watchdog is not None and watchdog.fired
            return Answer(None, _milliseconds(started), _late() if late else _describe(error))
        duration = _milliseconds(started)
        if watchdog.fired:
            self.close()
            return Answer(None, duration, _late())
        return Answer(response.status, duration, body=_text(head))

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None


def _milliseconds(started: float) -> int:
    return round((time.monotonic() - started) * 1000)
