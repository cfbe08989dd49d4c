"""A system's Open511 feeds, for road-and-trail portals and route apps that read Open511:
/feeds/<id>/open511.json and /feeds/<id>/open511.xml (its closures and notices as events, with
Open511's filters), /feeds/<id>/open511/jurisdiction (the system as a jurisdiction: its name,
contact and licence) and /feeds/<id>/open511/jurisdiction/geography (its area). The documents
are closures.open511's; a bad filter gets 400 with the error envelope. A system that is not on
the public map has none: 404, as its other feeds."""

from datetime import datetime
from urllib.parse import urlencode, urlsplit

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils import timezone

from closures.open511 import (
    Contact,
    EventFacts,
    EventFilters,
    Jurisdiction,
    check_version,
    closure_facts,
    event,
    event_filters,
    event_id,
    events_document,
    geography_document,
    jurisdiction_document,
    jurisdiction_id,
    notice_facts,
    xml_document,
)
from closures.open511_selectors import (
    open511_closures,
    open511_notices,
    system_extent,
    trails_geography,
)
from core.errors import Invalid, refusal_response
from core.links import absolute, is_http_url
from public.feed_entries import closure_lines, closure_title
from public.feed_http import public_feed
from public.feeds import FEED_MAX_AGE
from public.pages import of_public_system
from trails.models import TrailSystem
from trails.timezones import zone_of

FORMATS = ("xml", "json")
XML_CONTENT_TYPE = "application/xml; charset=utf-8"


def _jurisdiction(system: TrailSystem) -> Jurisdiction:
    host = urlsplit(settings.PUBLIC_BASE_URL).hostname or "localhost"
    return Jurisdiction(
        id=jurisdiction_id(system.pk, host),
        url=absolute("feed-open511-jurisdiction", system.pk),
        zone=zone_of(system),
        language=system.language,
    )


def _events(system: TrailSystem, zone, now) -> list[EventFacts]:
    """Closures first, then notices, each by start; a notice about the whole system covers its
    extent (none without trails: such a notice has no place to be shown)."""
    facts = [
        closure_facts(
            closure,
            closure.stretch,
            headline=closure_title(closure),
            description="\n".join(closure_lines(closure, zone)),
            now=now,
        )
        for closure in open511_closures(system.pk, now)
    ]
    notices = open511_notices(system.pk, now)
    extent = system_extent(system.pk) if any(not n.trails for n in notices) else None
    for notice in notices:
        geography = trails_geography(notice.trails) if notice.trails else extent
        if geography is not None:
            names = [trail.name for trail in notice.trails]
            facts.append(notice_facts(notice.update, names, geography, now=now))
    return facts


def _answer(document: dict, format: str, language: str) -> HttpResponse:
    if format == "json":
        return JsonResponse(document, json_dumps_params={"ensure_ascii": False})
    return HttpResponse(xml_document(document, language), content_type=XML_CONTENT_TYPE)


def _self_url(request: HttpRequest, url_name: str, system: TrailSystem) -> str:
    url = absolute(url_name, system.pk)
    return f"{url}?{request.GET.urlencode()}" if request.GET else url


def _events_document(
    system: TrailSystem, format: str, now: datetime, filters: EventFilters | None, url: str
) -> dict:
    """The events feed's document at `url`, with the events `filters` keep (all: None)."""
    jurisdiction = _jurisdiction(system)
    feed = absolute(f"feed-open511-{format}", system.pk)
    events = [
        event(facts, jurisdiction, f"{feed}?{urlencode({'id': event_id(facts, jurisdiction)})}")
        for facts in _events(system, jurisdiction.zone, now)
        if filters is None or filters.keep(facts, jurisdiction)
    ]
    return events_document(events, url)


def _events_view(request: HttpRequest, system: TrailSystem, format: str) -> HttpResponse:
    now = timezone.now()
    try:
        filters = event_filters(request.GET, now)
    except Invalid as error:
        return refusal_response(error)
    url = _self_url(request, f"feed-open511-{format}", system)
    return _answer(_events_document(system, format, now, filters, url), format, system.language)


def events_xml(system: TrailSystem) -> bytes:
    """open511.xml as it answers without a filter now, whether the system is on the public map
    or not (manage.py check_feeds)."""
    url = absolute("feed-open511-xml", system.pk)
    return xml_document(_events_document(system, "xml", timezone.now(), None, url), system.language)


@public_feed(ttl=FEED_MAX_AGE)
@of_public_system
def open511_json_view(request: HttpRequest, system: TrailSystem) -> HttpResponse:
    return _events_view(request, system, "json")


@public_feed(ttl=FEED_MAX_AGE)
@of_public_system
def open511_xml_view(request: HttpRequest, system: TrailSystem) -> HttpResponse:
    return _events_view(request, system, "xml")


def _format(request: HttpRequest) -> str:
    """Open511's `format` parameter; XML without it."""
    check_version(request.GET)
    format = request.GET.get("format", "xml").lower()
    if format not in FORMATS:
        raise Invalid("invalid_format", f"{format!r} is not one of xml, json.", field="format")
    return format


def _in_format_asked(request: HttpRequest, system: TrailSystem, build) -> HttpResponse:
    """A jurisdiction's document, built by `build()`, in the format the request asks."""
    try:
        format = _format(request)
    except Invalid as error:
        return refusal_response(error)
    return _answer(build(), format, system.language)


def _jurisdiction_document(system: TrailSystem) -> dict:
    contact = Contact(
        email=settings.FEEDS_CONTACT_EMAIL,
        license_url=system.feeds_license_url,
        geography_url=absolute("feed-open511-geography", system.pk),
        phone=system.phone_number,
        description=system.description,
        website=system.website if is_http_url(system.website) else "",
    )
    return jurisdiction_document(system.name, _jurisdiction(system), contact)


def jurisdiction_xml(system: TrailSystem) -> bytes:
    """The jurisdiction document in XML, as it answers now (manage.py check_feeds)."""
    return xml_document(_jurisdiction_document(system), system.language)


@public_feed(ttl=FEED_MAX_AGE)
@of_public_system
def jurisdiction_view(request: HttpRequest, system: TrailSystem) -> HttpResponse:
    return _in_format_asked(request, system, lambda: _jurisdiction_document(system))


@public_feed(ttl=FEED_MAX_AGE)
@of_public_system
def geography_view(request: HttpRequest, system: TrailSystem) -> HttpResponse:
    url = _self_url(request, "feed-open511-geography", system)
    return _in_format_asked(
        request, system, lambda: geography_document(system_extent(system.pk), url)
    )
