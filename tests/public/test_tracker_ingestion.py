"""Trackers' positions in the stream process (config.asgi), off the web workers: the same
answers as the web process gives, taken in the process's own pool of threads.

The ASGI application runs on an event loop of its own thread, as uvicorn runs it; its pool's
threads read and write on their own connections (transactional tests)."""

import asyncio
import base64
import logging
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlencode

import orjson
import pytest
from asgiref.testing import ApplicationCommunicator
from django.db import connection
from django.utils import timezone

from core.actors import Actor, Via
from grooming.models import Tracker, TrackerPosition
from grooming.trackers import create_tracker, tracking_addresses
from public import tracking
from tests.factories import TrailFactory
from tests.public.test_live import http_scope

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _stream_process(monkeypatch):
    """The stream process's application, loaded before the test's log capture starts (it
    sets Django up, logging too). Its pool's threads close their database connections after
    each request (CONN_MAX_AGE 0), so none outlives the test's database."""
    from config import asgi  # noqa: F401 - loaded for its set-up

    monkeypatch.setitem(connection.settings_dict, "CONN_MAX_AGE", 0)


@pytest.fixture
def secret(system) -> str:
    TrailFactory(trail_system=system)
    return create_tracker(system=system, name="PistenBully", actor=Actor("u", Via.WEB_APP)).secret


def post_through_asgi(
    path: str, query: dict, *, method: str = "GET", body: bytes = b"", headers: tuple = ()
) -> tuple[int, bytes]:
    """One request to config.asgi's application, on an event loop of its own thread."""

    async def request() -> tuple[int, bytes]:
        from config.asgi import application

        scope = {
            **http_scope(path, headers),
            "method": method,
            "query_string": urlencode(query).encode(),
        }
        communicator = ApplicationCommunicator(application, scope)
        await communicator.send_input({"type": "http.request", "body": body})
        start = await communicator.receive_output(timeout=15)
        answer = await communicator.receive_output(timeout=15)
        await communicator.wait(timeout=5)
        return start["status"], answer["body"]

    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, request()).result()


def request_lines(caplog) -> list[tuple[str, str]]:
    """The request log's lines, each with the name of the thread that wrote it."""
    return [
        (record.getMessage(), record.threadName)
        for record in caplog.records
        if record.name == "trails.request"
    ]


def test_a_position_is_taken_in_the_stream_process_pool_and_logged(secret, caplog):
    now = int(timezone.now().timestamp())
    with caplog.at_level(logging.INFO, logger="trails.request"):
        answer = post_through_asgi(
            "/track/osmand", {"id": secret, "lat": 45.69, "lon": -113.95, "timestamp": now}
        )
    assert answer == (200, b"")
    assert TrackerPosition.objects.count() == 1
    assert Tracker.objects.get().last_position_on is not None
    ((line, thread),) = request_lines(caplog)
    assert line == "GET /track/osmand 200"
    assert thread.startswith("tracker")  # the process's pool: not the event loop, no web worker
    assert secret not in caplog.text


def test_owntracks_json_and_refusals_answer_as_on_the_web_process(secret):
    message = {"_type": "location", "lat": 45.69, "lon": -113.95, "tst": 1}
    basic = base64.b64encode(f"groomer:{secret}".encode())
    message["tst"] = int(timezone.now().timestamp())
    status, _ = post_through_asgi(
        "/track/owntracks",
        {},
        method="POST",
        body=orjson.dumps(message),
        headers=((b"authorization", b"Basic " + basic), (b"content-type", b"application/json")),
    )
    assert status == 200
    assert TrackerPosition.objects.count() == 1

    unknown = {"id": "trk_" + "x" * 32, "lat": 45.69, "lon": -113.95}
    assert post_through_asgi("/track/osmand", unknown) == (403, b"Unknown or revoked tracker.\n")
    no_password = post_through_asgi("/track/owntracks", {}, method="POST", body=b"{}")
    assert no_password[0] == 401
    assert post_through_asgi("/track/osmand", {"id": secret, "lat": "north", "lon": 1})[0] == 400


def test_a_body_over_the_bound_is_refused_before_it_is_read(secret, caplog):
    declared = str(tracking.MAX_BODY_BYTES + 1).encode()
    with caplog.at_level(logging.INFO, logger="trails.request"):
        status, body = post_through_asgi(
            "/track/osmand",
            {"id": secret},
            method="POST",
            headers=((b"content-length", declared), (b"content-type", b"application/json")),
        )
    assert status == 413 and b"over 64 KB" in body
    assert request_lines(caplog) == []  # no view ran
    assert not TrackerPosition.objects.exists()


def test_trackers_are_given_the_stream_process_address_when_it_has_its_own(settings):
    settings.PUBLIC_BASE_URL = "https://trails.example.org"
    settings.STREAM_BASE_URL = ""
    behind_proxy = tracking_addresses("trk_abc")
    assert behind_proxy["tracking_url"] == "https://trails.example.org/track/osmand?id=trk_abc"
    settings.STREAM_BASE_URL = "http://127.0.0.1:8001"
    own_port = tracking_addresses("trk_abc")
    assert own_port["tracking_url"] == "http://127.0.0.1:8001/track/osmand?id=trk_abc"
    assert own_port["owntracks_url"] == "http://127.0.0.1:8001/track/owntracks"
