"""Request guards for the management interface."""

from django.conf import settings
from django.http import JsonResponse

from core.errors import envelope

API_PREFIX = "/api/v1/"


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
