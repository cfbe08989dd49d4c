"""The ASGI application: the live map streams' process (`uvicorn config.asgi:application`, the
Procfile's `stream` line), where one event loop holds every open stream and no WSGI worker is
tied up by one; the trackers' positions are taken here too, off the web workers
(public/ingestion.py). It is the whole Django project, so any route answers here as well.

A stream is an anonymous GET that stays open for hours: sessions, CSRF, authentication,
messages, CSP and the login lockout have nothing to do for it, and Django's ASGI handler would
give it a thread for its whole life (public/streams.py says why). So the streams' route is
answered before the handler, straight from the event loop, as the WSGI side answers /legacy
before the pages' middleware.

The process raises its open-file limit to the hard limit first: each stream is a socket, and
STREAM_MAX_CONNECTIONS' default is derived from the limit. It then lowers its CPU priority by
STREAM_NICENESS: a flood of stream requests must not take the CPU from the web workers.
uvicorn's error line for each dropped stream is left out (public/streams.py counts them).
"""

import logging
import os
import re

import django
from django.conf import settings
from django.core.handlers.asgi import ASGIHandler

from config.request_log import RequestLogMiddleware
from core.open_files import raise_open_file_limit

raise_open_file_limit()
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup(set_prefix=False)

from public import ingestion, streams  # noqa: E402 - needs the apps loaded

os.nice(settings.STREAM_NICENESS)
logging.getLogger("uvicorn.error").addFilter(streams.DroppedStreamFilter())

EVENTS_PATH = re.compile(r"/map/(?P<system_id>[^/]+)/events")
# The trackers' views, each with its request log line, as the web process logs them.
TRACKER_VIEWS = {path: RequestLogMiddleware(view) for path, view in ingestion.VIEWS.items()}


class Handler(ASGIHandler):
    """Django's ASGI handler, but the streams' and the trackers' routes are served without it."""

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http":
            path = scope["path"].removeprefix(scope.get("root_path", ""))
            if match := EVENTS_PATH.fullmatch(path):
                await streams.serve(scope, receive, send, match["system_id"])
                return
            if view := TRACKER_VIEWS.get(path):
                await ingestion.serve(scope, receive, send, view)
                return
        await super().__call__(scope, receive, send)


application = Handler()
