"""/feeds/<id>/mtnxml.xml: the system's ski report in MTN.XML 1.0 (public.mtnxml), for a
system that publishes trails for alpine or nordic skiing; any other answers 404."""

from django.http import Http404, HttpRequest, HttpResponse
from django.utils import timezone

from public.feed_http import public_feed
from public.feeds import FEED_MAX_AGE
from public.mtnxml import CONTENT_TYPE, mtnxml_document, ski_report
from public.pages import of_public_system
from trails.models import TrailSystem


@public_feed(ttl=FEED_MAX_AGE)
@of_public_system
def mtnxml_view(request: HttpRequest, system: TrailSystem) -> HttpResponse:
    report = ski_report(system, timezone.now())
    if report is None:
        raise Http404("This trail system has no trails for alpine or nordic skiing.")
    return HttpResponse(mtnxml_document(report), content_type=CONTENT_TYPE)
