"""A local HTTP server in a thread standing in for an outside service (Twilio, Open-Meteo).

Tests give it a responder, point the real client at ``server.url``, and read the recorded
requests to check that they are what the service expects.
"""

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes

    @property
    def form(self) -> dict[str, list[str]]:
        return parse_qs(self.body.decode())


# Status and a JSON-serialisable body (or bytes, sent as they are), and optionally headers.
Reply = tuple[int, object] | tuple[int, object, dict[str, str]]
Responder = Callable[[Recorded], Reply]


class FakeServer:
    def __init__(self, responder: Responder):
        self.responder = responder
        self.requests: list[Recorded] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def _handle(self):
                parts = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                recorded = Recorded(
                    self.command,
                    parts.path,
                    parse_qs(parts.query),
                    dict(self.headers.items()),
                    self.rfile.read(length),
                )
                server.requests.append(recorded)
                status, body, *more = server.responder(recorded)
                raw = isinstance(body, bytes)  # sent as it is, e.g. an HTML error page
                payload = body if raw else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "text/html" if raw else "application/json")
                self.send_header("Content-Length", str(len(payload)))
                for name, value in (more[0] if more else {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = _handle

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def __enter__(self) -> "FakeServer":
        self.thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@contextmanager
def serving(settings, responder: Responder, url_setting: str, path: str, **more) -> Iterator:
    """A started FakeServer with settings.<url_setting> pointing at its `path`, and any
    further settings given (such as the provider name) in place."""
    with FakeServer(responder) as server:
        setattr(settings, url_setting, f"{server.url}{path}")
        for name, value in more.items():
            setattr(settings, name, value)
        yield server
