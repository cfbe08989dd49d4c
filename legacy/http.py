"""What every legacy route shares: the 500-with-empty-body rule, the origin allowlist and
conditional GET (ETag, Last-Modified) for pollers."""

import hashlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from functools import wraps

from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist
from django.http import HttpRequest, HttpResponse
from django.utils.cache import get_conditional_response, patch_vary_headers
from django.utils.http import http_date
from django.views.decorators.csrf import csrf_exempt

from core.compression import ENCODINGS, accepted_encoding, compressed_copies
from core.preflight import read_only_preflight
from legacy.documents import NotAvailable

logger = logging.getLogger(__name__)

READ_METHODS = ("GET", "HEAD")


@dataclass
class Answer:
    """An encoded body with its validators; the ETag is a digest of the exact bytes.

    Its compressed copies are made once, at the first request that accepts them: a cached
    answer (legacy/cache.py) serves every poller from the same copy."""

    body: bytes
    last_modified: datetime | None = None
    etag: str = field(init=False)
    _copies: dict[str, bytes] | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self.etag = f'"{hashlib.blake2b(self.body, digest_size=16).hexdigest()}"'

    def copies(self) -> dict[str, bytes]:
        if self._copies is None:
            self._copies = compressed_copies(self.body)
        return self._copies

    def sent(self, accept_encoding: str) -> tuple[bytes, str | None, str]:
        """The body, its Content-Encoding and ETag for a reader that accepts these encodings.
        A compressed body's ETag is the weak form of the same digest, as Django's
        GZipMiddleware makes it: the bytes differ, the document is the same."""
        if accepted_encoding(accept_encoding, ENCODINGS):
            copies = self.copies()
            encoding = accepted_encoding(accept_encoding, copies)
            if encoding:
                return copies[encoding], encoding, f"W/{self.etag}"
        return self.body, None, self.etag


class UnknownRoute(Exception):
    """A path under /legacy that names no route, or a method other than GET or HEAD."""


def _allow_origin(request: HttpRequest, response: HttpResponse) -> None:
    """Browsers may read the answer only from allowed origins, on every legacy route (spec
    section 4); only the published map file, served by storage, is open to every origin."""
    origin = request.headers.get("Origin")
    patch_vary_headers(response, ["Origin"])
    if origin and origin in settings.LEGACY_ALLOWED_ORIGINS:
        response["Access-Control-Allow-Origin"] = origin
        response["Access-Control-Expose-Headers"] = "ETag, Last-Modified"


def _conditional(request: HttpRequest, answer: Answer) -> HttpResponse:
    """200 with validators, or 304 when the poller already holds these exact bytes;
    compressed when the reader accepts it."""
    body, encoding, etag = answer.sent(request.headers.get("Accept-Encoding", ""))
    response = HttpResponse(body, content_type="application/json")
    patch_vary_headers(response, ["Accept-Encoding"])
    if encoding:
        response["Content-Encoding"] = encoding
    response["ETag"] = etag
    # Pollers must revalidate every time; a 304 costs them nothing.
    response["Cache-Control"] = "no-cache"
    modified = None
    if answer.last_modified is not None:
        modified = int(answer.last_modified.timestamp())
        response["Last-Modified"] = http_date(modified)
    if request.method == "HEAD":
        # The GET's length, no body: the server must not send one (RFC 9110).
        response.content = b""
        response["Content-Length"] = str(len(body))
    return get_conditional_response(request, etag=etag, last_modified=modified, response=response)


def _failure(request: HttpRequest, exc: Exception) -> HttpResponse:
    if isinstance(exc, ObjectDoesNotExist | NotAvailable | UnknownRoute):
        logger.warning("legacy %s %s: %s", request.method, request.path, exc)
    else:
        logger.exception("legacy %s %s failed", request.method, request.path)
    response = HttpResponse(status=500)
    # Logged above with its cause; stops django.request logging a second, causeless line.
    response._has_been_logged = True
    return response


def legacy_route(*, preflight: bool = True) -> Callable:
    """Wrap a view returning an Answer; every failure becomes a 500 with an empty body.

    preflight: answer OPTIONS (not for the catch-all of unknown routes, which fails whatever
    the method).
    """

    def decorate(view: Callable[..., Answer]) -> Callable[..., HttpResponse]:
        @csrf_exempt
        @wraps(view)
        def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            try:
                if request.method == "OPTIONS" and preflight:
                    response = read_only_preflight(request)
                elif request.method in READ_METHODS or not preflight:
                    response = _conditional(request, view(request, *args, **kwargs))
                else:
                    raise UnknownRoute(f"method {request.method} is not served")
            except Exception as exc:
                response = _failure(request, exc)
            _allow_origin(request, response)
            if "Content-Length" not in response:
                # Answered before CommonMiddleware (legacy.middleware.LegacyRouteMiddleware),
                # which would have set it; without it the server would send chunks.
                response["Content-Length"] = str(len(response.content))
            return response

        return wrapped

    return decorate
