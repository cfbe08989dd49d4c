"""The CORS answers of the read-only public routes, outside django-cors-headers' origin
allowlist: the preflight the legacy interface and the published files answer themselves, and
the header of public data any site may read (published files, feeds, live streams)."""

from django.conf import settings
from django.http import HttpRequest, HttpResponse

READ_ONLY_METHODS = "GET, HEAD, OPTIONS"
# Public data: a page of any origin (a club's site, a lodge screen) may read it.
ANY_ORIGIN = ("Access-Control-Allow-Origin", "*")


def readable_from_any_origin(response: HttpResponse) -> HttpResponse:
    name, value = ANY_ORIGIN
    response[name] = value
    return response


def validators_exposed(response: HttpResponse) -> HttpResponse:
    """Let a page of another origin read the ETag (Last-Modified it may read anyway), to send
    it back in If-None-Match."""
    response["Access-Control-Expose-Headers"] = "ETag"
    return response


def read_only_preflight(request: HttpRequest) -> HttpResponse:
    """204 allowing GET and HEAD with whatever headers the browser asks for; the caller adds
    the Access-Control-Allow-Origin its route allows."""
    response = HttpResponse(status=204)
    response["Allow"] = READ_ONLY_METHODS
    response["Access-Control-Allow-Methods"] = READ_ONLY_METHODS
    requested = request.headers.get("Access-Control-Request-Headers")
    if requested:
        response["Access-Control-Allow-Headers"] = requested
    response["Access-Control-Max-Age"] = str(settings.CORS_PREFLIGHT_MAX_AGE)
    return response
