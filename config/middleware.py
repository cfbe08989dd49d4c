"""Request guards that run before any view, for every interface."""

import logging

from django.http import HttpRequest, HttpResponse, HttpResponseNotFound, JsonResponse
from django.middleware.gzip import GZipMiddleware

from api.errors import envelope
from api.middleware import API_PREFIX
from core.ids import CONTROL_CHARACTER
from core.outages import RETRY_AFTER_SECONDS, UNAVAILABLE
from legacy.middleware import LEGACY_PREFIX

logger = logging.getLogger(__name__)


class ControlCharacterPathMiddleware:
    """A path with a control character (%00, %0A) names nothing: each interface answers it
    the way it answers any unknown route, never with Django's HTML 404 or a database error."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not CONTROL_CHARACTER.search(request.path):
            return self.get_response(request)
        if request.path.startswith(API_PREFIX):
            message = f"No route {request.method} {request.path!r}."
            return JsonResponse(envelope("not_found", message), status=404)
        if request.path.startswith(LEGACY_PREFIX):
            logger.warning("legacy %s %r: control character in path", request.method, request.path)
            response = HttpResponse(status=500)
            response._has_been_logged = True  # logged above; no second, causeless line
            return response
        return HttpResponseNotFound()


class CompressionMiddleware(GZipMiddleware):
    """API JSON and pages gzipped for readers that accept it, by Django's GZipMiddleware (with
    its BREACH padding), but never a body marked `Cache-Control: no-store`: the answers that
    carry a secret (a new API key, a webhook's signing secret, the web app's pages that show
    them, the sign-in pages) are so marked for no browser or proxy to keep them, and a
    compressed secret beside text an attacker chose is what BREACH reads. Nor a response
    marked `no-transform` (the live map's event streams, sent event by event). The legacy
    routes are answered before this middleware and compress their cached bodies themselves
    (legacy/http.py); published files come compressed, or as written until their copies
    exist (publishing.media marks them `sent_as_stored`: never compressed per request)."""

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        directives = response.get("Cache-Control", "")
        if "no-store" in directives or "no-transform" in directives:
            return response
        if getattr(response, "sent_as_stored", False):
            return response
        return super().process_response(request, response)


class UnavailableMiddleware:
    """A page or a public write (a tracker's position, a rider's report, a sign-up) that meets
    a service down (core.outages) answers 503 with Retry-After, as the API does: the client
    sends again later, and nothing half-done was kept (the view's transaction rolled back).
    JSON for a client that asks for it, a line of text otherwise."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, UNAVAILABLE):
            return None
        logger.warning("Unavailable: %s %s: %r", request.method, request.path, exception)
        message = "The service is briefly unavailable; retry soon."
        if "application/json" in request.headers.get("Accept", ""):
            response = JsonResponse(envelope("service_unavailable", message), status=503)
        else:
            response = HttpResponse(message + "\n", status=503, content_type="text/plain")
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        response["Cache-Control"] = "no-store"
        return response
