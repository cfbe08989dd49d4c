"""The ASGI application: the live map streams' process (`uvicorn config.asgi:application`, the
Procfile's `stream` line), where one event loop holds every open stream and no WSGI worker is
tied up by one. It is the whole Django project, so any route answers here as well.

A stream is an anonymous GET that stays open for hours: sessions, CSRF, authentication,
messages, CSP and the login lockout have nothing to do for it, and under ASGI the synchronous
middleware chain costs thread hops on every request (milliseconds of CPU each time thousands
of pages reconnect at once). So the streams' route is answered before the chain, straight from
the event loop, as the WSGI side answers /legacy before the pages' middleware.
"""

import os
import re

import django
from django.core.handlers.asgi import ASGIHandler
from django.core.handlers.exception import convert_exception_to_response
from django.http import HttpRequest, HttpResponse

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup(set_prefix=False)

from public.views import events_async_view  # noqa: E402 - needs the apps loaded

EVENTS_PATH = re.compile(r"/map/(?P<system_id>[^/]+)/events")


async def _stream(request: HttpRequest) -> HttpResponse:
    return await events_async_view(request, EVENTS_PATH.fullmatch(request.path_info)["system_id"])


class Handler(ASGIHandler):
    """Django's ASGI handler, but the streams' route skips the middleware chain."""

    def __init__(self) -> None:
        super().__init__()
        # An error becomes Django's 500 response, as it would in the chain.
        self.stream = convert_exception_to_response(_stream)

    async def get_response_async(self, request: HttpRequest) -> HttpResponse:
        if EVENTS_PATH.fullmatch(request.path_info) is None:
            return await super().get_response_async(request)
        response = await self.stream(request)
        response._resource_closers.append(request.close)
        return response


application = Handler()
