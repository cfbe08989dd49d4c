"""Request guards that run before any view, for every interface."""

import logging

from django.http import HttpResponse, HttpResponseNotFound, JsonResponse

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
