"""A webhook receiver of the test's own: an HTTP server on 127.0.0.1 that records every request
(headers and body) and answers from a script of status codes (then 200), optionally slowly
(after a delay, or a byte at a time)."""

import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from standardwebhooks import Webhook


@dataclass
class Received:
    at: float  # time.monotonic()
    path: str
    headers: dict[str, str]  # names in lower case
    body: bytes

    @property
    def webhook_id(self) -> str:
        return self.headers["webhook-id"]

    def verified(self, secret: str) -> dict:
        """The payload, once its signature is checked with the standardwebhooks package."""
        return Webhook(secret).verify(self.body, self.headers)


@dataclass
class Receiver:
    statuses: list[int] = field(default_factory=list)  # answered in order, then 200
    delay: float = 0.0
    trickle: float = 0.0  # seconds between the answer's bytes, sent one at a time
    body: bytes = b'{"ok": true}'
    location: str = ""  # sent with a 3xx
    received: list[Received] = field(default_factory=list)

    def __post_init__(self):
        self.lock = threading.Lock()
        self.arrived = threading.Condition(self.lock)
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as real receivers do
            # Headers and body leave at once, as from any real server (Nagle's algorithm
            # would hold the body for the sender's delayed ACK: 40 ms a request).
            disable_nagle_algorithm = True

            def do_POST(self):
                length = int(self.headers.get("content-length", 0))
                body = self.rfile.read(length)
                headers = {name.lower(): value for name, value in self.headers.items()}
                status = receiver.record(self.path, headers, body)
                if receiver.delay:
                    time.sleep(receiver.delay)
                self.send_response(status)
                if receiver.location:
                    self.send_header("Location", receiver.location)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(receiver.body)))
                if not receiver.trickle:
                    self.end_headers()
                    self.wfile.write(receiver.body)
                    return
                self._headers_buffer.append(b"\r\n")
                answer = b"".join(self._headers_buffer) + receiver.body
                self._headers_buffer = []
                for byte in answer:
                    self.wfile.write(bytes([byte]))
                    time.sleep(receiver.trickle)

            def log_message(self, *args):
                pass

        class Server(ThreadingHTTPServer):
            def handle_error(self, request, client_address):
                """A sender killed mid-request resets its connection: not the test's error."""

        self.server = Server(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_port}/hooks/trails"

    def record(self, path: str, headers: dict, body: bytes) -> int:
        with self.lock:
            self.received.append(Received(time.monotonic(), path, headers, body))
            status = self.statuses.pop(0) if self.statuses else 200
            self.arrived.notify_all()
        return status

    def wait_for(self, count: int, timeout: float) -> list[Received]:
        """The requests so far once there are at least `count`, or fails after `timeout`."""
        with self.lock:
            if not self.arrived.wait_for(lambda: len(self.received) >= count, timeout):
                raise AssertionError(f"{len(self.received)} of {count} requests in {timeout}s")
            return list(self.received)

    def ids(self) -> list[str]:
        with self.lock:
            return [request.webhook_id for request in self.received]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver():
    """Make receivers on 127.0.0.1 (`receiver(statuses=[500])`), closed after the test."""
    made: list[Receiver] = []

    def make(**options) -> Receiver:
        made.append(Receiver(**options))
        return made[-1]

    yield make
    for each in made:
        each.close()
