"""The CORS preflight of the read-only public routes: the legacy interface and the published
files answer OPTIONS themselves, outside django-cors-headers' origin allowlist."""

from django.conf import settings
from django.http import HttpRequest, HttpResponse

READ_ONLY_METHODS = "GET, HEAD, OPTIONS"


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
