"""/feeds/<id>/closures.geojson: the stretches of trail closed now, as the system's last
compile wrote them (closures.documents), with the published file and never after it."""

from django.http import HttpRequest, HttpResponse

from closures.documents import closures_file
from closures.models import PublishedClosures
from public.feed_http import public_feed
from public.pages import of_public_system
from publishing.storage import GEOJSON_CONTENT_TYPE
from trails.models import TrailSystem

# The live map fetches it again on each publication; others may keep it this long.
CLOSURES_MAX_AGE = 5


@public_feed(ttl=CLOSURES_MAX_AGE)
@of_public_system
def closures_geojson_view(request: HttpRequest, system: TrailSystem) -> HttpResponse:
    body = (
        PublishedClosures.objects.filter(trail_system=system).values_list("body", flat=True).first()
    )
    if body is None:  # not compiled since closures came: none was in effect
        body = closures_file(system.pk, [], {}, system.language)
    return HttpResponse(bytes(body), content_type=GEOJSON_CONTENT_TYPE)
