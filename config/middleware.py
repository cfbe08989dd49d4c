"""Request guards that run before any view, for every interface."""

import logging

from django.http import HttpRequest, HttpResponse, HttpResponseNotFound, JsonResponse
from django.middleware.gzip import GZipMiddleware
from django.urls import resolve
from django_prometheus.middleware import PrometheusAfterMiddleware

from api.errors import envelope
from api.middleware import API_PREFIX
from core.ids import CONTROL_CHARACTER

LEGACY_PREFIX = "/legacy/"

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


class LegacyRouteMiddleware:
    """The legacy interface is answered here, before the middleware of pages and the API.

    Its routes are anonymous JSON reads that every embed polls all day, most of the service's
    requests, and the polled ones are answered from a process cache: sessions, locale, CSRF,
    authentication, messages, framing, CSP and the login lockout have nothing to do for them,
    yet took twice the cost of the answer itself. The request log, the security headers and
    the request ids (earlier in the chain) still apply, and Prometheus' per-view figures are
    taken here, as its last middleware would. A path with a control character goes on to
    ControlCharacterPathMiddleware, which answers it."""

    def __init__(self, get_response):
        self.get_response = get_response
        self.metrics = PrometheusAfterMiddleware(self._view)

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not request.path.startswith(LEGACY_PREFIX) or CONTROL_CHARACTER.search(request.path):
            return self.get_response(request)
        # Every path under the prefix resolves: the legacy catch-all answers unknown routes.
        request.resolver_match = resolve(request.path_info)
        return self.metrics(request)

    def _view(self, request: HttpRequest) -> HttpResponse:
        match = request.resolver_match
        self.metrics.process_view(request, match.func, match.args, match.kwargs)
        return match.func(request, *match.args, **match.kwargs)


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
