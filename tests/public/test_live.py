"""The live map stream /map/<id>/events: what it sends, when, and to whom.

Streams are read as a browser would, frame by frame: through the WSGI view where compiles run
in-process (the embedded default, as these tests do), and through the ASGI application the
stream process runs (config.asgi). Writes commit (transactional tests): the hub's thread reads
the row from its own connection, as it does in production.
"""

import asyncio
import queue
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import orjson
import pytest
from asgiref.testing import ApplicationCommunicator
from django.db import transaction
from django.utils import timezone

from closures.documents import closures_file
from closures.models import Closure, PublishedClosures
from closures.services import create_closure
from core import listening
from core.actors import Actor, Via
from core.compiles import request_compile
from grooming.models import GroomingSession
from grooming.sessions import Position, end_running_session, receive_positions
from grooming.trackers import create_tracker
from public import live
from tests.factories import PointFactory, TrailFactory, TrailSystemFactory
from tests.grooming.geo import path
from trails.models import Trail, TrailSystem

pytestmark = pytest.mark.django_db(transaction=True)


def compile_now(system: TrailSystem) -> None:
    with transaction.atomic():
        request_compile(system, reason="test")
    system.refresh_from_db()


def set_status(trail: Trail, status: str) -> None:
    with transaction.atomic():
        Trail.objects.filter(pk=trail.pk).update(status=status)
        request_compile(trail.trail_system_id, reason="test")


@pytest.fixture
def system():
    system = TrailSystemFactory(name="Pine Hill Nordic")
    TrailFactory(trail_system=system, name="Meadow Loop", status="Open", order=1)
    TrailFactory(trail_system=system, name="Ridge Run", status="Caution", order=2)
    TrailFactory(trail_system=system, name="Secret Path", status="Open", hidden=True, order=3)
    PointFactory(trail_system=system, name="Main lodge", marker_class="lodge")
    compile_now(system)
    return system


def parse(chunk: bytes) -> list[dict]:
    """The messages of a chunk of the stream: {id, event, data} (data parsed) or comments."""
    messages = []
    for block in chunk.decode().split("\n\n"):
        if not block:
            continue
        message: dict = {}
        for line in block.split("\n"):
            field, _, value = line.partition(": ")
            if field == "data":
                message["data"] = orjson.loads(value)
            elif line.startswith(":"):
                message["comment"] = line[1:].strip()
            else:
                message[field] = value
        messages.append(message)
    return messages


class Reader:
    """Reads a streaming response's chunks in a thread, as the browser's connection would."""

    def __init__(self, response):
        self.response = response
        self.chunks: queue.SimpleQueue = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        try:
            for chunk in self.response.streaming_content:
                self.chunks.put(chunk)
        finally:
            self.chunks.put(None)

    def next(self, timeout: float = 5.0) -> list[dict]:
        chunk = self.chunks.get(timeout=timeout)
        return [] if chunk is None else parse(chunk)

    def until(self, event: str, timeout: float = 5.0) -> dict:
        return self.all_until(event, timeout)[-1]

    def all_until(self, event: str, timeout: float = 5.0) -> list[dict]:
        """Every message up to the first `event` event, that one last."""
        deadline = time.monotonic() + timeout
        seen = []
        while time.monotonic() < deadline:
            for message in self.next(deadline - time.monotonic()):
                seen.append(message)
                if message.get("event") == event:
                    return seen
        raise AssertionError(f"no {event} event within {timeout}s")


def hub_answers_for(system_id: str, timeout: float = 5.0) -> None:
    """Wait until the hub listens and has read the system in this listening session: a
    commit from now on is heard, and compared with what the streams were sent."""
    deadline = time.monotonic() + timeout
    while live.hub.vouched(system_id) is None:
        assert time.monotonic() < deadline, f"the hub did not read {system_id} in {timeout}s"
        time.sleep(0.01)


@pytest.fixture
def open_stream(client):
    """Streams stay open until the test's end, when the hub is stopped (tests/conftest.py)
    and ends them."""

    def open_(system_id: str, **headers) -> Reader:
        response = client.get(f"/map/{system_id}/events", headers=headers)
        assert response.status_code == 200, response.content
        return Reader(response)

    return open_


def test_a_stream_starts_with_the_current_file_of_the_system(client, system, settings):
    settings.PUBLIC_BASE_URL = "https://trails.example"
    response = client.get(f"/map/{system.pk}/events")

    assert response["Content-Type"] == "text/event-stream"
    assert response["Cache-Control"] == "no-cache, no-transform"
    assert response["Access-Control-Allow-Origin"] == "*"
    assert not response.has_header("Content-Encoding")
    first = Reader(response).next()
    assert first[0] == {"retry": "2000"}
    current = first[1]
    version = system.geo_json_path.rsplit("/", 1)[1].removesuffix(".geojson")
    assert current["event"] == "current"
    assert current["id"] == version
    assert current["data"] == {
        "systemId": system.pk,
        "version": version,
        "fileUrl": f"https://trails.example/media/{system.geo_json_path}",
        "compiledOn": current["data"]["compiledOn"],
        "changes": None,
    }
    assert current["data"]["compiledOn"].endswith("Z")


def test_a_compile_reaches_every_open_stream_with_what_changed(open_stream, system, settings):
    settings.PUBLIC_BASE_URL = "https://trails.example"
    first, second = open_stream(system.pk), open_stream(system.pk)
    for reader in (first, second):
        reader.until("current")
    meadow = system.trails.get(name="Meadow Loop")
    secret = system.trails.get(name="Secret Path")
    hub_answers_for(system.pk)  # it read the file the streams started from

    set_status(meadow, "Closed")

    events = [reader.until("published") for reader in (first, second)]
    assert events[0] == events[1]
    system.refresh_from_db()
    data = events[0]["data"]
    assert data["fileUrl"] == f"https://trails.example/media/{system.geo_json_path}"
    assert data["changes"] == {
        "trails": [
            {"trailId": meadow.pk, "name": "Meadow Loop", "status": "Closed", "previous": "Open"}
        ],
        "points": [],
        "otherChanges": False,
    }

    set_status(secret, "Closed")  # hidden: not on the public map, so not listed

    changes = first.until("published")["data"]["changes"]
    assert changes == {"trails": [], "points": [], "otherChanges": True}


def test_a_compile_before_the_hub_first_reads_a_stream_still_says_what_changed(system):
    """A rider who opens the map as a change is made: the hub had not yet read the file the
    stream started from when the compile came. The event still lists the change."""
    stream = live.Stream()
    live.hub.open(system.pk, live.Publication.of(system), stream)  # the hub's thread not running
    meadow = system.trails.get(name="Meadow Loop")
    set_status(meadow, "Closed")

    live.hub.start()

    [event] = parse(stream.queue.get(timeout=5))
    assert event["event"] == "published"
    assert event["data"]["changes"]["trails"] == [
        {"trailId": meadow.pk, "name": "Meadow Loop", "status": "Closed", "previous": "Open"}
    ]


def test_a_reconnecting_stream_gets_the_events_it_missed_or_nothing(open_stream, client, system):
    reader = open_stream(system.pk)
    started_from = reader.until("current")["id"]
    hub_answers_for(system.pk)
    set_status(system.trails.get(name="Ridge Run"), "Open")
    published = reader.until("published")

    resumed = open_stream(system.pk, **{"Last-Event-ID": started_from}).next()
    assert [m.get("event") for m in resumed] == [None, "published"]
    assert resumed[1] == published
    current = open_stream(system.pk, **{"Last-Event-ID": published["id"]}).next()
    assert current == [{"retry": "2000"}]  # nothing missed
    unknown = open_stream(system.pk, **{"Last-Event-ID": "long-gone"}).next()
    assert unknown[1]["event"] == "current"
    assert unknown[1]["id"] == published["id"]


@pytest.mark.serial  # measures time
def test_an_idle_stream_gets_heartbeats(open_stream, system, settings):
    settings.STREAM_HEARTBEAT_SECONDS = 1
    reader = open_stream(system.pk)
    reader.next()

    started = time.monotonic()
    assert reader.next(timeout=3) == [{"comment": "keep-alive"}]
    assert 0.8 < time.monotonic() - started < 2.5


def test_a_system_that_leaves_the_public_map_ends_its_streams(open_stream, system):
    reader = open_stream(system.pk)
    reader.next()
    hub_answers_for(system.pk)

    with transaction.atomic():
        TrailSystem.objects.filter(pk=system.pk).update(inactive=True)

    assert reader.until("unavailable")["data"] == {"systemId": system.pk}
    assert reader.next() == []  # the stream ended


def test_no_stream_of_an_unknown_or_inactive_system(client):
    hidden = TrailSystemFactory(inactive=True)
    for system_id in ("nope", hidden.pk):
        response = client.get(f"/map/{system_id}/events")
        assert response.status_code == 404


def test_a_system_never_compiled_streams_its_first_compile(open_stream):
    system = TrailSystemFactory()
    TrailFactory(trail_system=system, name="First Light", status="Open")
    reader = open_stream(system.pk)
    assert reader.next() == [{"retry": "2000"}]
    hub_answers_for(system.pk)

    compile_now(system)

    data = reader.until("published")["data"]
    assert data["changes"] is None  # nothing to compare with: the page reads it all
    assert data["fileUrl"].endswith(system.geo_json_path)


def test_a_wsgi_worker_refuses_streams_where_compiles_run_elsewhere(client, system, settings):
    """With a broker (the production topology) the ASGI process serves streams; a gunicorn
    worker held by one would serve nothing else."""
    settings.CELERY_TASK_ALWAYS_EAGER = False

    response = client.get(f"/map/{system.pk}/events")

    assert response.status_code == 503
    assert response["Access-Control-Allow-Origin"] == "*"


GROOMER = Actor("groomer", Via.ID_TOKEN)
LINE = path([(0, 0), (1500, 0)], step=100)


def groomed_system(**fields) -> tuple[TrailSystem, list]:
    """A compiled system with one trail along LINE, and three trackers."""
    system = TrailSystemFactory(name="Pine Hill Nordic", **fields)
    TrailFactory(
        trail_system=system,
        name="Meadow Loop",
        geometry={"type": "LineString", "coordinates": LINE},
    )
    compile_now(system)
    trackers = [
        create_tracker(system=system, name=f"PistenBully {n}", actor=GROOMER).tracker
        for n in (1, 2, 3)
    ]
    return system, trackers


def position(tracker, step: int) -> None:
    """The tracker's position `step` of LINE, recorded `step` seconds into the last minute."""
    lng, lat = LINE[step]
    moment = timezone.now() - timedelta(seconds=60 - step)
    receive_positions(tracker=tracker, positions=[Position(lng, lat, moment)])


def test_machines_grooming_now_travel_on_the_stream_coalesced(open_stream):
    system, trackers = groomed_system(groomers_live=True)
    reader = open_stream(system.pk)
    first = reader.until("groomers")
    assert first["data"] == {"systemId": system.pk, "groomers": []}
    assert "id" not in first  # Last-Event-ID stays the file's version

    # Three machines at one position a second each: a handful of events, not fifteen.
    for step in range(5):
        for tracker in trackers:
            position(tracker, step)
    events = []
    while (
        not events
        or len(events[-1]["data"]["groomers"]) < 3
        or any(groomer["lng"] != round(LINE[4][0], 6) for groomer in events[-1]["data"]["groomers"])
    ):
        events.append(reader.until("groomers"))
    assert len(events) <= 3
    assert [groomer["name"] for groomer in events[-1]["data"]["groomers"]] == [
        "PistenBully 1",
        "PistenBully 2",
        "PistenBully 3",
    ]
    assert events[-1]["data"]["groomers"][0] == {
        "trackerId": trackers[0].pk,
        "name": "PistenBully 1",
        "lat": round(LINE[4][1], 6),
        "lng": round(LINE[4][0], 6),
        "at": events[-1]["data"]["groomers"][0]["at"],
    }

    # A stream opened now gets the machines at once.
    late = open_stream(system.pk).next()
    assert [m.get("event") for m in late] == [None, "current", "groomers"]
    assert late[2]["data"] == events[-1]["data"]

    # A machine moved by another process (a web worker) is heard on PostgreSQL's channel.
    with transaction.atomic():
        GroomingSession.objects.filter(tracker=trackers[0]).update(
            last_lng=LINE[6][0], last_lat=LINE[6][1]
        )
        listening.notify(listening.GROOMERS_MOVED, system.pk)
    while reader.until("groomers")["data"]["groomers"][0]["lng"] != round(LINE[6][0], 6):
        pass

    # Their sessions end: they leave the map.
    for tracker in trackers:
        end_running_session(tracker=tracker)
    while reader.until("groomers")["data"]["groomers"]:
        pass


def test_nothing_of_a_machine_travels_where_the_system_does_not_show_groomers(open_stream):
    system, trackers = groomed_system()
    reader = open_stream(system.pk)
    reader.until("current")
    time.sleep(0.3)  # the hub has read the row

    for step in range(3):
        position(trackers[0], step)
    time.sleep(0.3)  # an event would have been due at once
    set_status(system.trails.get(), "Closed")

    seen = reader.all_until("published")
    assert "groomers" not in [message.get("event") for message in seen]
    assert b"PistenBully" not in b"".join(orjson.dumps(message) for message in seen)
    assert [m.get("event") for m in open_stream(system.pk).next()] == [None, "current"]


def test_changes_list_status_changes_and_say_when_something_else_changed():
    def item(name, status, visible=True, digest=b"1"):
        return live.Item(name=name, status=status, visible=visible, digest=digest)

    before = {
        ("trail", "a"): item("Alpha", "Open"),
        ("trail", "b"): item("Bravo", "Open"),
        ("trail", "c"): item("Charlie", "Closed", visible=False),
        ("point", "p"): item("Lodge", "Open"),
    }
    after = {
        ("trail", "a"): item("Alpha", "Open", digest=b"2"),  # renamed, regroomed...: other
        ("trail", "c"): item("Charlie", "Closed"),  # unhidden: appears
        ("trail", "d"): item("Delta", "Caution"),  # new
        ("point", "p"): item("Lodge", "Closed", digest=b"2"),
    }

    assert live.changes_between(before, after) == {
        "trails": [
            {"trailId": "b", "name": "Bravo", "status": None, "previous": "Open"},
            {"trailId": "c", "name": "Charlie", "status": "Closed", "previous": None},
            {"trailId": "d", "name": "Delta", "status": "Caution", "previous": None},
        ],
        "points": [{"pointId": "p", "name": "Lodge", "status": "Closed", "previous": "Open"}],
        "otherChanges": True,
    }


def test_an_event_lists_at_most_a_hundred_trails():
    before = {("trail", str(i)): live.Item(f"T{i:03}", "Open", True, b"") for i in range(150)}
    after = {key: live.Item(item.name, "Closed", True, b"x") for key, item in before.items()}

    changes = live.changes_between(before, after)

    assert len(changes["trails"]) == live.MAX_LISTED
    assert changes["otherChanges"] is True


# The ASGI application of the stream process


def http_scope(path: str, headers: list | tuple = (), address: str = "127.0.0.1") -> dict:
    """A GET's ASGI scope, from a client at `address`."""
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"testserver"), *headers],
        "client": (address, 50000),
        "server": ("testserver", 80),
    }


async def _asgi_stream(path: str, headers: list, wanted: int) -> tuple[dict, list[bytes]]:
    from config.asgi import application

    communicator = ApplicationCommunicator(application, http_scope(path, headers))
    await communicator.send_input({"type": "http.request", "body": b"", "more_body": False})
    start = await communicator.receive_output(timeout=10)
    bodies = []
    try:
        while len(bodies) < wanted:
            message = await communicator.receive_output(timeout=10)
            if message.get("body"):
                bodies.append(message["body"])
            if not message.get("more_body"):
                break
    finally:
        await communicator.send_input({"type": "http.disconnect"})
        await asyncio.sleep(0.05)
        await communicator.wait(timeout=5)
    return start, bodies


def asgi_stream(path: str, headers: list, wanted: int) -> tuple[dict, list[bytes]]:
    """In an event loop of its own thread, as the stream process runs (this thread may hold
    the browser tests' loop)."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, _asgi_stream(path, headers, wanted)).result()


def test_the_asgi_process_streams_without_the_middleware_chain(system):
    start, bodies = asgi_stream(f"/map/{system.pk}/events", [], 1)

    headers = dict(start["headers"])
    assert start["status"] == 200
    assert headers[b"Content-Type"] == b"text/event-stream"
    assert b"Set-Cookie" not in headers  # no session middleware on the way
    messages = parse(bodies[0])
    assert messages[1]["event"] == "current"
    assert messages[1]["data"]["systemId"] == system.pk
    assert live.hub.stream_count() == 0  # the disconnect closed it


def test_the_asgi_process_answers_an_unknown_system_and_other_routes_as_django_does(system):
    start, _ = asgi_stream("/map/nope/events", [], 1)
    assert start["status"] == 404
    start, _ = asgi_stream("/healthz", [], 1)
    assert start["status"] == 200


def test_a_closure_reaches_every_open_stream_as_the_version_of_the_closures_file(
    open_stream, client, system
):
    """A closure changes no map file: its stream event names the closures file's new
    version (its ETag), from this process's write and from another's (PostgreSQL's channel)."""
    reader = open_stream(system.pk)
    reader.until("current")
    hub_answers_for(system.pk)
    ridge = system.trails.get(name="Ridge Run")

    closure = create_closure(trail=ridge, actor=GROOMER, reason="washout")

    event = reader.until("closures")
    etag = client.get(f"/feeds/{system.pk}/closures.geojson")["ETag"]
    assert event["data"] == {"systemId": system.pk, "version": etag.strip('"')}
    assert "id" not in event  # Last-Event-ID stays the file's

    channel = listening.listener(listening.CLOSURES_CHANGED)
    deadline = time.monotonic() + 5
    while not channel.listening:
        assert time.monotonic() < deadline, "the hub does not listen for closures"
        time.sleep(0.01)
    with transaction.atomic():  # another process reopens it: heard on PostgreSQL's channel
        Closure.objects.filter(pk=closure.pk).update(ended_on=timezone.now())
        PublishedClosures.objects.filter(trail_system=system).update(
            body=closures_file(system.pk, [], {}, system.language)
        )
        listening.notify(listening.CLOSURES_CHANGED, system.pk)
    reopened = reader.all_until("closures")
    assert [m.get("event") for m in reopened] == ["closures"]  # no new map file
    etag = client.get(f"/feeds/{system.pk}/closures.geojson")["ETag"]
    assert reopened[-1]["data"]["version"] == etag.strip('"') != event["data"]["version"]
