"""POST /route-check/<system id>: the public route check (closures.routes), for route apps
without an API key. Anonymous, so bounded as the riders' reports are: per client, per day and
over the whole site; a route over 2 MB is refused before it is read (413)."""

from django.conf import settings
from django.http import HttpRequest, JsonResponse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from closures.documents import route_check_document
from closures.routes import ROUTE_BYTES_MAX, check_route
from core import ratelimit
from core.clients import counted_client
from core.errors import Invalid, envelope
from core.preflight import readable_from_any_origin
from grooming.tracks import TrackError, parse_upload
from public.pages import of_public_system
from trails.models import TrailSystem

TEN_MINUTES, DAY, HOUR = 600, 86_400, 3_600


def _refused(status: int, code: str, message: str) -> JsonResponse:
    return readable_from_any_origin(JsonResponse(envelope(code, message), status=status))


def _within_bounds(request: HttpRequest) -> bool:
    client = counted_client(request)
    return (
        ratelimit.allow(
            "route-check-client",
            client,
            limit=settings.REPORTS_PER_CLIENT_10_MINUTES,
            window_seconds=TEN_MINUTES,
        )
        and ratelimit.allow(
            "route-check-client-day",
            client,
            limit=settings.REPORTS_PER_CLIENT_DAY,
            window_seconds=DAY,
        )
        and ratelimit.allow(
            "route-check-site", "all", limit=settings.REPORTS_PER_HOUR, window_seconds=HOUR
        )
    )


@csrf_exempt
@require_POST
@of_public_system
def route_check_view(request: HttpRequest, system: TrailSystem) -> JsonResponse:
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    if length > ROUTE_BYTES_MAX:
        return _refused(413, "route_too_large", "The route is over 2 MB.")
    if not _within_bounds(request):
        return _refused(429, "too_many_checks", "Too many route checks; try again later.")
    try:
        route = parse_upload(request.body)
        check = check_route(system_id=system.pk, lines=route.lines, now=timezone.now())
    except TrackError as error:
        return _refused(400, "invalid_geometry", str(error))
    except Invalid as error:
        return _refused(400, error.code, str(error))
    return readable_from_any_origin(
        JsonResponse(route_check_document(system.pk, check, system.language))
    )
