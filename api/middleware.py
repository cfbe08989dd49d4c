"""Request guards that run before any view."""

import logging

from django.conf import settings
from django.http import HttpResponse, HttpResponseNotFound, JsonResponse

from api.errors import envelope
from core.limits import CONTROL_CHARACTER

API_PREFIX = "/api/v1/"
LEGACY_PREFIX = "/legacy/"

logger = logging.getLogger(__name__)


def declared_length(request) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


class BodySizeLimitMiddleware:
    """Refuse management bodies over the limit before anything reads or parses them.

    DRF's JSON parser reads the request stream itself, so Django's own
    DATA_UPLOAD_MAX_MEMORY_SIZE check never fires for API requests.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if request.path.startswith(API_PREFIX) and declared_length(request) > limit:
            message = f"Request body is over the {limit // (1024 * 1024)} MB limit."
            return JsonResponse(envelope("payload_too_large", message), status=413)
        return self.get_response(request)


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
