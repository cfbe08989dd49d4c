"""Bounds of the live streams (/map/<id>/events): per client address and per process, in the
stream process's ASGI application (config.asgi) and in the embedded default's runserver.

The ASGI application runs on an event loop of its own thread, as uvicorn runs it; writes
commit from the test's thread (transactional tests), as the API's would.
"""

import asyncio
import logging
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from asgiref.testing import ApplicationCommunicator
from django.db import transaction
from prometheus_client import REGISTRY

from core.compiles import request_compile
from public import live
from public.streams import INCOMPLETE
from tests.factories import TrailFactory, TrailSystemFactory
from tests.public.test_live import http_scope, parse
from trails.models import Trail

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def system():
    system = TrailSystemFactory(name="Pine Hill Nordic")
    TrailFactory(trail_system=system, name="Meadow Loop", status="Open")
    with transaction.atomic():
        request_compile(system, reason="test")
    return system


class Connection:
    """One request to the ASGI application, read as a browser's connection would."""

    def __init__(self, server: "StreamServer", communicator: ApplicationCommunicator, start):
        self.server = server
        self.communicator = communicator
        self.status = start["status"]
        self.headers = {name.decode().lower(): value.decode() for name, value in start["headers"]}

    def body(self) -> tuple[bytes, bool]:
        """The next chunk, and whether more follow."""
        message = self.server.run(self.communicator.receive_output(timeout=10))
        return message.get("body", b""), message.get("more_body", False)

    def until(self, event: str) -> dict:
        while True:
            chunk, more = self.body()
            for message in parse(chunk):
                if message.get("event") == event:
                    return message
            assert more, f"the stream ended before a {event} event"


class StreamServer:
    """config.asgi's application on an event loop of its own thread."""

    def __init__(self) -> None:
        from config.asgi import application

        self.application = application
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.connections: list[Connection] = []

    def run(self, coroutine, timeout: float = 15):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def get(self, path: str, address: str, headers: tuple = ()) -> Connection:
        async def request() -> Connection:
            scope = http_scope(path, headers, address)
            communicator = ApplicationCommunicator(self.application, scope)
            await communicator.send_input({"type": "http.request", "body": b""})
            return Connection(self, communicator, await communicator.receive_output(timeout=10))

        connection = self.run(request())
        self.connections.append(connection)
        return connection

    def close(self) -> None:
        async def leave(connection: Connection) -> None:
            await connection.communicator.send_input({"type": "http.disconnect"})
            await connection.communicator.wait(timeout=5)

        async def leave_all() -> None:
            await asyncio.gather(*(leave(each) for each in self.connections))

        self.run(leave_all())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join()
        self.loop.close()


@pytest.fixture
def server():
    server = StreamServer()
    yield server
    server.close()


def events(system) -> str:
    return f"/map/{system.pk}/events"


def set_status(trail: Trail, status: str) -> None:
    with transaction.atomic():
        Trail.objects.filter(pk=trail.pk).update(status=status)
        request_compile(trail.trail_system_id, reason="test")


def refusals(reason: str) -> float:
    return REGISTRY.get_sample_value("trails_streams_refused_total", {"reason": reason}) or 0


def test_one_address_gets_twenty_streams_and_another_still_gets_the_change(server, system):
    held = [server.get(events(system), "203.0.113.7") for _ in range(20)]
    assert {each.status for each in held} == {200}
    refused_before = refusals("per_client")

    for _ in range(5):
        refused = server.get(events(system), "203.0.113.7")
        assert refused.status == 429
        assert refused.headers["retry-after"] == "60"
        assert refused.headers["access-control-allow-origin"] == "*"
        assert refused.headers["connection"] == "close"  # the flood's sockets go at once
        assert refused.body() == (b"Too many live streams from this address.", False)
    assert refusals("per_client") - refused_before == 5  # counted, not logged

    rider = server.get(events(system), "198.51.100.20")
    assert rider.status == 200
    rider.until("current")
    held[0].until("current")
    set_status(system.trails.get(), "Closed")
    changes = rider.until("published")["data"]["changes"]
    assert changes["trails"][0]["status"] == "Closed"
    assert held[0].until("published")["data"]["changes"] == changes


def test_a_stream_that_ends_frees_its_place(server, system):
    held = [server.get(events(system), "203.0.113.7") for _ in range(20)]
    assert server.get(events(system), "203.0.113.7").status == 429

    server.run(held[0].communicator.send_input({"type": "http.disconnect"}))
    server.run(held[0].communicator.wait(timeout=5))

    assert server.get(events(system), "203.0.113.7").status == 200


def test_an_ipv6_client_is_counted_by_its_slash_64(server, system):
    for host in range(20):
        assert server.get(events(system), f"2001:db8:1:2::{host + 1:x}").status == 200

    assert server.get(events(system), "2001:db8:1:2:ffff::9").status == 429
    assert server.get(events(system), "2001:db8:1:3::1").status == 200


def test_clients_behind_a_trusted_proxy_are_counted_each(server, system, settings):
    settings.TRUSTED_PROXIES = ["10.0.0.0/8"]

    def via_proxy(client: str) -> Connection:
        return server.get(events(system), "10.0.0.5", ((b"x-forwarded-for", client.encode()),))

    assert {via_proxy("203.0.113.7").status for _ in range(20)} == {200}
    assert via_proxy("203.0.113.7").status == 429
    assert via_proxy("198.51.100.20").status == 200
    # From an untrusted peer the header names nobody: the peer is the client.
    for _ in range(20):
        server.get(events(system), "192.0.2.1", ((b"x-forwarded-for", b"198.51.100.99"),))
    assert server.get(events(system), "192.0.2.1").status == 429


def test_a_full_process_refuses_with_503(server, system, settings):
    settings.STREAM_MAX_CONNECTIONS = 3
    for host in range(3):
        assert server.get(events(system), f"198.51.100.{host + 1}").status == 200

    refused = server.get(events(system), "198.51.100.99")

    assert refused.status == 503
    assert refused.headers["retry-after"] == "60"


def test_a_stream_holds_no_thread_of_its_own(server, system):
    server.get(events(system), "198.51.100.1").until("current")
    threads = threading.active_count()

    opened = [server.get(events(system), f"198.51.100.{host + 2}") for host in range(40)]

    assert {each.status for each in opened} == {200}
    assert live.hub.stream_count() == 41
    assert threading.active_count() - threads < 10  # the loop's shared pool at most


@pytest.fixture
def application():
    """config.asgi's application, loaded before a test's log capture starts: its first
    import sets Django up again, the logging configuration with it."""
    from config.asgi import application

    return application


def test_a_client_that_stops_reading_is_dropped(application, system, settings, caplog):
    """The server's send waits while the client's buffers are full: past the write timeout
    the stream ends and its place is free; it is counted, and uvicorn's error line for the
    incomplete response is left out (its other such lines are not)."""
    settings.STREAM_WRITE_TIMEOUT_SECONDS = 1
    scope = http_scope(events(system), address="203.0.113.7")
    sent: list[dict] = []

    async def receive() -> dict:
        await asyncio.Event().wait()  # the client never leaves
        return {}

    async def send(message: dict) -> None:
        if message["type"] == "http.response.body":
            await asyncio.Event().wait()  # never read
        sent.append(message)

    async def run() -> None:
        """As uvicorn's run_asgi: the application in the connection's task, then its line."""
        async with asyncio.timeout(10):
            await application(scope, receive, send)
        logging.getLogger("uvicorn.error").error(INCOMPLETE)

    dropped_before = REGISTRY.get_sample_value("trails_streams_dropped_total")
    # A loop of its own in a thread of its own: the browser tests' Playwright may already run
    # one in this thread.
    with ThreadPoolExecutor(max_workers=1) as pool, caplog.at_level(logging.INFO):
        pool.submit(asyncio.run, run()).result()
        logging.getLogger("uvicorn.error").error(INCOMPLETE)  # another application's

    assert sent[0]["status"] == 200
    assert live.hub.stream_count() == 0
    assert live.admissions.total == 0
    assert REGISTRY.get_sample_value("trails_streams_dropped_total") - dropped_before == 1
    uvicorns = [record.getMessage() for record in caplog.records if record.name == "uvicorn.error"]
    assert uvicorns == [INCOMPLETE]


def test_the_embedded_defaults_server_bounds_streams_too(client, system):
    """runserver (a thread per connection) serves streams in the embedded default."""
    from tests.public.test_live import Reader

    readers = []
    for _ in range(20):
        response = client.get(events(system), REMOTE_ADDR="203.0.113.7")
        assert response.status_code == 200
        readers.append(Reader(response))
    for reader in readers:
        reader.next()

    refused = client.get(events(system), REMOTE_ADDR="203.0.113.7")

    assert refused.status_code == 429
    assert refused["Retry-After"] == "60"
    assert client.get(events(system), REMOTE_ADDR="198.51.100.20").status_code == 200
