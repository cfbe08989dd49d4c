"""The legacy interface, answered early in the middleware chain (past pages and API)."""

from django.http import HttpRequest, HttpResponse
from django.urls import resolve
from django_prometheus.middleware import PrometheusAfterMiddleware

from core.ids import CONTROL_CHARACTER

LEGACY_PREFIX = "/legacy/"


class LegacyRouteMiddleware:
    """The legacy interface is answered here, before the middleware of pages and the API.

    Its routes are anonymous JSON reads that every embed polls all day, most of the service's
    requests, and the polled ones are answered from a process cache: sessions, locale, CSRF,
    authentication, messages, framing, CSP and the login lockout have nothing to do for them,
    yet took twice the cost of the answer itself. The request log, the security headers and
    the request ids (earlier in the chain) still apply, and Prometheus' per-view figures are
    taken here, as its last middleware would. A path with a control character goes on to
    config.middleware.ControlCharacterPathMiddleware, which answers it."""

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
