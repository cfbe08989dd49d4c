"""One JSON log line per request, and a request id that ties a request's log lines together.

An incoming ``X-Request-ID`` of a sane shape (1-128 letters, digits and ``-_.:``, as load
balancers and tracing proxies send) is kept; anything else is replaced by a new one. The id
is returned in the response's ``X-Request-ID`` header and added to every log record written
while the request runs (the ``request_id`` field of the JSON format).
"""

import logging
import re
import time
import uuid
from contextvars import ContextVar

from django.http import HttpRequest, HttpResponse

from core.clients import client_address

HEADER = "X-Request-ID"
SANE_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")

current_request_id: ContextVar[str] = ContextVar("request_id", default="")
logger = logging.getLogger("trails.request")


def request_id_for(request: HttpRequest) -> str:
    sent = request.headers.get(HEADER, "")
    return sent if SANE_REQUEST_ID.fullmatch(sent) else uuid.uuid4().hex


class RequestIdFilter(logging.Filter):
    """Adds the current request's id (empty outside a request) to every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = current_request_id.get()
        return True


def logged_path(request: HttpRequest) -> str:
    """The path, except where it carries a secret (an unsubscribe token): then the route."""
    match = request.resolver_match
    if match and "token" in match.kwargs:
        return "/" + match.route
    return request.path


class RequestLogMiddleware:
    """First in the chain, so its line covers every other middleware's work and answer."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request_id = request_id_for(request)
        token = current_request_id.set(request_id)
        started = time.monotonic()
        try:
            response = self.get_response(request)
            response[HEADER] = request_id
            logger.info(
                "%s %s %s",
                request.method,
                logged_path(request),
                response.status_code,
                extra={
                    "method": request.method,
                    "path": logged_path(request),
                    "status": response.status_code,
                    "duration_ms": round((time.monotonic() - started) * 1000, 1),
                    "remote_addr": request.META.get("REMOTE_ADDR", ""),
                    "client": client_address(request),
                },
            )
            return response
        finally:
            current_request_id.reset(token)
