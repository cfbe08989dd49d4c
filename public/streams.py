"""The live stream's route in the ASGI process (config/asgi.py), answered as a plain ASGI
application: one coroutine per stream on the event loop, and no thread.

Django's ASGI handler runs each request in a ThreadSensitiveContext and sends its
request_started signal through sync_to_async, which gives every request a thread of its own
until its response ends: for a stream, hours (19,400 streams were 19,400 threads and 1.2 GB).
Here a stream is its connection's coroutine and a task that waits for the client to leave;
the one query a system not yet followed needs runs in the loop's shared pool of threads.

A stream is admitted first (public/live.py's Admissions: per client, per process), from the
scope alone: a flood's refusal builds no request, runs no query and logs nothing (it is
counted, trails_streams_refused_total), and its connection closes with the answer. A client
that stops reading fills its connection's buffers; when a write then waits longer than
STREAM_WRITE_TIMEOUT_SECONDS, the stream is dropped (returning with the response incomplete
makes the server close the connection) and counted, without uvicorn's error line for it.
"""

import asyncio
import functools
import io
import logging
from contextvars import ContextVar

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpResponse, HttpResponseNotAllowed

from core.clients import counted_scope_client
from public import live, metrics
from public.pages import not_found
from public.views import last_event_id, publication

HEADERS = [(name.encode(), value.encode()) for name, value in live.STREAM_HEADERS]
# What uvicorn logs (an error) when an application returns with its response incomplete.
INCOMPLETE = "ASGI callable returned without completing response."
# Set in a connection's task when its stream was dropped: uvicorn's line for it is left out.
_dropped: ContextVar[bool] = ContextVar("stream_dropped", default=False)


class DroppedStreamFilter(logging.Filter):
    """On uvicorn's error logger: a dropped stream is counted, not an error line each."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.msg == INCOMPLETE and _dropped.get())


async def serve(scope: dict, receive, send, system_id: str) -> None:
    """GET /map/<id>/events in the ASGI process."""
    if scope["method"] not in ("GET", "HEAD"):
        await _answer(send, HttpResponseNotAllowed(["GET", "HEAD"]))
        return
    client = counted_scope_client(scope)
    refusal = live.admissions.admit(client)
    if refusal is not None:
        await _refuse(send, refusal)
        return
    request = ASGIRequest(scope, io.BytesIO())
    try:
        live.hub.start()
        current = live.hub.vouched(system_id) or await sync_to_async(
            publication, thread_sensitive=False
        )(system_id)
        if current is None:
            page = await sync_to_async(not_found, thread_sensitive=False)(request)
            await _answer(send, page)
        elif scope["method"] == "HEAD":
            await _write(send, {"type": "http.response.start", "status": 200, "headers": HEADERS})
            await _write(send, {"type": "http.response.body", "body": b""})
        else:
            await _stream(receive, send, system_id, current, last_event_id(request))
    finally:
        live.admissions.release(client)


async def _stream(
    receive, send, system_id: str, current: live.Publication, resume_from: str
) -> None:
    stream = live.Stream(asyncio.get_running_loop())
    first = live.hub.open(system_id, current, stream, resume_from)
    watcher = asyncio.create_task(_end_when_gone(receive, stream))
    try:
        if not await _write(
            send, {"type": "http.response.start", "status": 200, "headers": HEADERS}
        ):
            return
        item: bytes | None = live.RETRY_FRAME + first
        while item is not live.END:
            body = {"type": "http.response.body", "body": item, "more_body": True}
            if not await _write(send, body):
                return
            try:
                async with asyncio.timeout(settings.STREAM_HEARTBEAT_SECONDS):
                    item = await stream.queue.get()
            except TimeoutError:
                item = live.HEARTBEAT_FRAME
        await _write(send, {"type": "http.response.body", "body": b""})
    finally:
        watcher.cancel()
        live.hub.close(system_id, stream)


async def _end_when_gone(receive, stream: live.Stream) -> None:
    """The client's disconnect ends its stream (the server drops writes to a closed one)."""
    while (await receive())["type"] != "http.disconnect":
        pass
    stream.queue.put_nowait(live.END)


async def _write(send, message: dict) -> bool:
    """Sends one message; False when the client has not read for too long."""
    try:
        async with asyncio.timeout(settings.STREAM_WRITE_TIMEOUT_SECONDS):
            await send(message)
    except TimeoutError:
        metrics.streams_dropped.inc()
        _dropped.set(True)
        return False
    return True


async def _refuse(send, refusal: live.Refusal) -> None:
    """A refusal, whole, and the connection closes after it. A few hundred bytes into a new
    connection's buffer never wait: no write timeout to arm."""
    start, body = _refusal_messages(refusal, settings.MAP_POLL_SECONDS)
    await send(start)
    await send(body)


@functools.cache
def _refusal_messages(refusal: live.Refusal, poll_seconds: float) -> tuple[dict, dict]:
    """A refusal's two messages, made once (poll_seconds: its Retry-After)."""
    body = refusal.message.encode()
    headers = [(name.encode(), value.encode()) for name, value in refusal.headers()]
    headers += [(b"content-length", str(len(body)).encode()), (b"connection", b"close")]
    start = {"type": "http.response.start", "status": refusal.status, "headers": headers}
    return start, {"type": "http.response.body", "body": body}


async def _answer(send, response: HttpResponse) -> None:
    """A Django response, whole (a 404 page, a 405)."""
    headers = [
        (name.encode("latin-1"), value.encode("latin-1")) for name, value in response.items()
    ]
    start = {"type": "http.response.start", "status": response.status_code, "headers": headers}
    if await _write(send, start):
        await _write(send, {"type": "http.response.body", "body": response.content})
