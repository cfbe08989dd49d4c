"""The live stream's route in the ASGI process (config/asgi.py), answered as a plain ASGI
application: one coroutine per stream on the event loop, and no thread.

Django's ASGI handler runs each request in a ThreadSensitiveContext and sends its
request_started signal through sync_to_async, which gives every request a thread of its own
until its response ends: for a stream, hours (19,400 streams were 19,400 threads and 1.2 GB).
Here a stream is its connection's coroutine and a task that waits for the client to leave;
the one query a system not yet followed needs runs in the loop's shared pool of threads.

A stream is admitted first (public/live.py's Admissions: per client, per process), so a
refusal costs no query. A client that stops reading fills its connection's buffers; when a
write then waits longer than STREAM_WRITE_TIMEOUT_SECONDS, the stream is dropped (returning
with the response incomplete makes the server close the connection).
"""

import asyncio
import io
import logging

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpResponse, HttpResponseNotAllowed

from core.clients import counted_client
from public import live
from public.views import last_event_id, not_found, publication, stream_refused

logger = logging.getLogger(__name__)

HEADERS = [(name.encode(), value.encode()) for name, value in live.STREAM_HEADERS]


async def serve(scope: dict, receive, send, system_id: str) -> None:
    """GET /map/<id>/events in the ASGI process."""
    request = ASGIRequest(scope, io.BytesIO())
    if request.method not in ("GET", "HEAD"):
        await _answer(send, HttpResponseNotAllowed(["GET", "HEAD"]))
        return
    client = counted_client(request)
    refusal = live.admissions.admit(client)
    if refusal is not None:
        await _answer(send, stream_refused(refusal.status, refusal.message))
        return
    try:
        live.hub.start()
        current = live.hub.vouched(system_id) or await sync_to_async(
            publication, thread_sensitive=False
        )(system_id)
        if current is None:
            page = await sync_to_async(not_found, thread_sensitive=False)(request)
            await _answer(send, page)
        elif request.method == "HEAD":
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
        logger.info("live map: dropped a stream whose client stopped reading")
        return False
    return True


async def _answer(send, response: HttpResponse) -> None:
    """A whole, short answer (a refusal, a 404 page)."""
    headers = [
        (name.encode("latin-1"), value.encode("latin-1")) for name, value in response.items()
    ]
    start = {"type": "http.response.start", "status": response.status_code, "headers": headers}
    if await _write(send, start):
        await _write(send, {"type": "http.response.body", "body": response.content})
