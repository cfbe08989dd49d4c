"""Trackers' positions in the ASGI process (config/asgi.py): off the web workers.

Fifty trackers at a position a second are fifty requests a second all day. Through gunicorn's
workers they queued in front of the API and the pages (39 positions a second took both
workers; another system's writes went from 0.35 to 2.85 s). The reverse proxy sends
/track/osmand and /track/owntracks to the stream process instead, where a request's body is
read on the event loop and its view (public/tracking.py, the same the web process and the
embedded default serve) runs in a small pool of threads of its own, TRACKER_THREADS: a flood
waits for those threads, never for a web worker, in a process that runs at STREAM_NICENESS
below the web workers. The pages' middleware has nothing to do for a position (anonymous,
CSRF-exempt, a plain-text answer): the request log (config/asgi.py wraps the views in it)
and the upkeep of the threads' database connections are all it needs.
"""

import asyncio
import io
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.db import close_old_connections
from django.http import HttpRequest, HttpResponse

from core.outages import UNAVAILABLE
from public import tracking

logger = logging.getLogger("trails.trackers")

VIEWS: dict[str, Callable[[HttpRequest], HttpResponse]] = {
    "/track/osmand": tracking.osmand_view,
    "/track/owntracks": tracking.owntracks_view,
}

_pool = ThreadPoolExecutor(settings.TRACKER_THREADS, thread_name_prefix="tracker")


class ClientGone(Exception):
    """The client left before its request's body was whole: nothing to store or answer."""


async def serve(scope: dict, receive, send, view: Callable[[HttpRequest], HttpResponse]) -> None:
    """A position request in the stream process: the body read here, the view (with the
    request log around it, config/asgi.py) in the pool."""
    try:
        body = await _body(scope, receive)
    except ClientGone:
        return
    if body is None:
        response = tracking.too_large()
    else:
        request = ASGIRequest(scope, io.BytesIO(body))
        loop = asyncio.get_running_loop()
        response = await loop.run_in_executor(_pool, _respond, view, request)
    headers = [
        (name.encode("latin-1"), value.encode("latin-1")) for name, value in response.items()
    ]
    await send({"type": "http.response.start", "status": response.status_code, "headers": headers})
    await send({"type": "http.response.body", "body": response.content})


async def _body(scope: dict, receive) -> bytes | None:
    """The request's body; None when it is over the trackers' bound (it is then not read)."""
    declared = dict(scope["headers"]).get(b"content-length", b"")
    if declared.isdigit() and int(declared) > tracking.MAX_BODY_BYTES:
        return None
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            raise ClientGone
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > tracking.MAX_BODY_BYTES:
            return None
        chunks.append(chunk)
        if not message.get("more_body"):
            return b"".join(chunks)


def _respond(handle: Callable[[HttpRequest], HttpResponse], request: HttpRequest) -> HttpResponse:
    """The view's answer in a pool thread, whose database connection is kept or closed
    before and after as Django's request signals would (CONN_MAX_AGE)."""
    close_old_connections()
    try:
        return handle(request)
    except UNAVAILABLE as error:
        logger.warning("A tracker's request met a service down: %s: %r", request.path, error)
        return tracking.unavailable()
    except Exception:
        logger.exception("A tracker's request failed: %s", request.path)
        return tracking.failed()
    finally:
        close_old_connections()
