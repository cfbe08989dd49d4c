"""The alerts benches' push service stand-in: an asyncio HTTP/1.1 server in a process of its
own, cheap enough to take little of the 2 cores it shares with the worker it measures. It
answers every POST at once with a 201 on the kept-alive connection, and notes its arrival
(time.monotonic: one clock for every process on the machine) and path; the first SAMPLES
requests are kept whole, for the bench to check as a push service and a browser would (the
VAPID JWT verified, the payload decrypted).

The bench reads what arrived over HTTP: GET /_received gives the count so far, and with
?from=N the [arrival, path] of the requests from the N-th on; GET /_samples the kept ones."""

import asyncio
import base64
import http.client
import json
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import parse_qs, urlsplit

SAMPLES = 3
CREATED = b"HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n"

received: list[tuple[float, str]] = []
samples: list[dict] = []


def _answer(method: str, target: str, fields: dict[str, str], body: bytes) -> bytes:
    if method == "POST":
        received.append((time.monotonic(), target))
        if len(samples) < SAMPLES:
            encoded = base64.b64encode(body).decode()
            samples.append({"path": target, "headers": fields, "body": encoded})
        return CREATED
    parts = urlsplit(target)
    if parts.path == "/_received":
        start = parse_qs(parts.query).get("from")
        document = {"count": len(received), "requests": received[int(start[0]) :] if start else []}
    else:
        document = samples
    content = json.dumps(document).encode()
    return b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(content), content)


class Connection(asyncio.Protocol):
    def connection_made(self, transport) -> None:
        self.transport = transport
        self.buffer = bytearray()

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while (end := self.buffer.find(b"\r\n\r\n")) >= 0:
            request_line, *lines = self.buffer[:end].decode("latin-1").split("\r\n")
            fields = {}
            for line in lines:
                name, _, value = line.partition(":")
                fields[name.strip().lower()] = value.strip()
            total = end + 4 + int(fields.get("content-length", 0))
            if len(self.buffer) < total:
                return
            body = bytes(self.buffer[end + 4 : total])
            del self.buffer[:total]
            method, target, _ = request_line.split(" ", 2)
            self.transport.write(_answer(method, target, fields, body))


async def _serve() -> None:
    server = await asyncio.get_running_loop().create_server(Connection, "127.0.0.1", 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    await server.serve_forever()


class PushService:
    """The stand-in, started in a process of its own; `origin` is its http://127.0.0.1:port."""

    def __init__(self) -> None:
        root = Path(__file__).resolve().parent.parent
        self.process = subprocess.Popen(
            [sys.executable, "-m", "bench.push_service"], cwd=root, stdout=subprocess.PIPE
        )
        self.port = int(self.process.stdout.readline())
        self.origin = f"http://127.0.0.1:{self.port}"

    def _get(self, target: str):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            connection.request("GET", target)
            return json.loads(connection.getresponse().read())
        finally:
            connection.close()

    def count(self) -> int:
        return self._get("/_received")["count"]

    def received(self, start: int = 0) -> list[tuple[float, str]]:
        """(arrival, path) of the requests from the `start`-th on."""
        return [tuple(request) for request in self._get(f"/_received?from={start}")["requests"]]

    def samples(self) -> list[SimpleNamespace]:
        """The first requests, whole: headers (names in lower case) and body."""
        return [
            SimpleNamespace(path=s["path"], headers=s["headers"], body=base64.b64decode(s["body"]))
            for s in self._get("/_samples")
        ]

    def close(self) -> None:
        self.process.terminate()
        self.process.wait()


if __name__ == "__main__":
    asyncio.run(_serve())
