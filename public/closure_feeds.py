"""/feeds/<id>/closures.geojson: the stretches of trail closed now, as the last write that
changed them stored them (closures.services.publish_closures). Its ETag is the version the live
stream's `closures` events name."""

from django.http import HttpRequest, HttpResponse
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET

from closures.documents import closures_version
from core.preflight import readable_from_any_origin
from public.selectors import published_closures
from public.views import of_public_system
from publishing.storage import GEOJSON_CONTENT_TYPE
from trails.models import TrailSystem

# The live map fetches it again on each `closures` event; others may keep it this long.
CLOSURES_MAX_AGE = 5


@require_GET
@cache_control(public=True, max_age=CLOSURES_MAX_AGE)
@of_public_system
def closures_geojson_view(request: HttpRequest, system: TrailSystem) -> HttpResponse:
    body = published_closures([system.pk])[system.pk]
    response = HttpResponse(body, content_type=GEOJSON_CONTENT_TYPE)
    response["ETag"] = f'"{closures_version(body)}"'
    return readable_from_any_origin(response)
