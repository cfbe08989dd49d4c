"""The push service's answers as HTTP/1.1 lets it frame them (a length, chunks, the end of the
connection, an interim answer first), and one that never completes: the alerts sender reads
each one itself, so each is tried here against a push service answering exactly those bytes."""

import socket
import socketserver
import threading
import time
from types import SimpleNamespace

import pytest

from alerts import push
from alerts.models import Alert, AlertQueue
from alerts.tasks import run_all_due
from tests.alerts.push_service import Subscription
from tests.alerts.test_push import follow
from tests.factories import TrailFactory

pytestmark = pytest.mark.django_db

CREATED = b"HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n"
CHUNKED = b"HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n"


class RawPushService:
    """A push service answering each request with the given bytes; an answer ending with the
    connection (`closes`) closes it after writing."""

    def __init__(self, answer: bytes, *, closes: bool = False, trickle: float = 0.0):
        self.paths: list[str] = []
        self.connections = 0
        service = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self):
                service.connections += 1
                while request_line := self.rfile.readline():
                    length = 0
                    while (line := self.rfile.readline()) not in (b"\r\n", b""):
                        name, _, value = line.decode().partition(":")
                        if name.lower() == "content-length":
                            length = int(value)
                    self.rfile.read(length)
                    service.paths.append(request_line.split()[1].decode())
                    for start in range(0, len(answer), 1 if trickle else len(answer)):
                        self.wfile.write(answer[start : start + (1 if trickle else len(answer))])
                        time.sleep(trickle)
                    if closes:
                        return

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def raw_push_service():
    made: list[RawPushService] = []

    def make(answer: bytes, **options) -> RawPushService:
        made.append(RawPushService(answer, **options))
        return made[-1]

    yield make
    for service in made:
        service.close()


@pytest.mark.parametrize(
    ("answer", "closes", "connections"),
    [
        (CREATED, False, 1),
        (CHUNKED, False, 1),
        (b"HTTP/1.1 100 Continue\r\n\r\n" + CREATED, False, 1),
        (b"HTTP/1.1 201 Created\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", True, 3),
        (b"HTTP/1.0 201 Created\r\n\r\n{}", True, 3),
    ],
    ids=["length", "chunked", "interim", "connection-close", "until-closed"],
)
def test_every_follower_gets_the_message_however_the_answer_is_framed(
    client, system, manager, raw_push_service, settings, answer, closes, connections
):
    settings.ALERTS_LANES = 1  # the three messages in one share, over one connection
    service = raw_push_service(answer, closes=closes)
    trail = TrailFactory(trail_system=system, status="Open")
    for _ in range(3):
        follow(client, system, Subscription.to(service), [{"trailId": trail.pk, "on": ["closes"]}])

    manager.patch(f"/api/v1/trails/{trail.pk}", {"status": "Closed"}, format="json")
    run_all_due()

    assert len(service.paths) == 3
    assert service.connections == connections  # kept alive unless the service ends it
    assert set(Alert.objects.values_list("state", flat=True)) == {"sent"}


def test_a_chunked_refusal_is_kept_and_refuses_that_message_only(
    client, system, manager, raw_push_service
):
    body = b'{"reason": "payload too large"}'
    chunks = b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
    answer = b"HTTP/1.1 413 Payload Too Large\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks
    service = raw_push_service(answer)
    trail = TrailFactory(trail_system=system, status="Open")
    follow(client, system, Subscription.to(service), [{"trailId": trail.pk, "on": ["closes"]}])

    manager.patch(f"/api/v1/trails/{trail.pk}", {"status": "Closed"}, format="json")
    run_all_due()

    alert = Alert.objects.get()
    assert (alert.state, alert.response_status, alert.error) == ("refused", 413, body.decode())
    assert not AlertQueue.objects.filter(backoff_until__isnull=False).exists()


def test_an_answer_not_complete_at_the_deadline_is_cut_there(
    client, system, manager, raw_push_service, monkeypatch
):
    monkeypatch.setattr(push, "TIMEOUT_SECONDS", 0.5)
    service = raw_push_service(CREATED, trickle=0.1)  # each byte well within a read timeout
    trail = TrailFactory(trail_system=system, status="Open")
    follow(client, system, Subscription.to(service), [{"trailId": trail.pk, "on": ["closes"]}])

    manager.patch(f"/api/v1/trails/{trail.pk}", {"status": "Closed"}, format="json")
    started = time.monotonic()
    run_all_due()

    assert time.monotonic() - started < 2
    alert = Alert.objects.get()
    assert (alert.state, alert.error) == ("pending", "no answer within 0.5 s")
    assert AlertQueue.objects.get().backoff_until is not None


def test_a_push_service_that_refuses_connections_makes_its_queue_back_off(client, system, manager):
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{unused.getsockname()[1]}"
    trail = TrailFactory(trail_system=system, status="Open")
    nobody = SimpleNamespace(url=url)  # nothing listens there
    follow(client, system, Subscription.to(nobody), [{"trailId": trail.pk, "on": ["closes"]}])

    manager.patch(f"/api/v1/trails/{trail.pk}", {"status": "Closed"}, format="json")
    run_all_due()

    alert = Alert.objects.get()
    assert alert.state == "pending" and alert.error.startswith("NewConnectionError")
    assert AlertQueue.objects.get().backoff_until is not None
