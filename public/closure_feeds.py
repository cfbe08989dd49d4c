"""/feeds/<id>/closures.geojson: the stretches of trail closed now, as the last write that
changed them stored them (closures.services.publish_closures). Its ETag (public_feed's, a
digest of the body) is the version the live stream's `closures` events name."""

from django.http import HttpRequest, HttpResponse

from public.feed_http import public_feed
from public.pages import of_public_system
from public.selectors import published_closures
from publishing.storage import GEOJSON_CONTENT_TYPE
from trails.models import TrailSystem

# The live map fetches it again on each `closures` event; others may keep it this long.
CLOSURES_MAX_AGE = 5


@public_feed(ttl=CLOSURES_MAX_AGE)
@of_public_system
def closures_geojson_view(request: HttpRequest, system: TrailSystem) -> HttpResponse:
    body = published_closures([system.pk])[system.pk]
    return HttpResponse(body, content_type=GEOJSON_CONTENT_TYPE)
