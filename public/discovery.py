"""/feeds/<id>/index.json: one file that names every feed of a trail system, as GBFS's
discovery file (gbfs.json) does for bike shares: when its data last changed, how long a reader
may keep it (`ttl`), the terms of reuse (licence and attribution) and each feed with its URL,
format and ttl. The feeds are listed from FEEDS, so listing a new one is one line there; its
ttl is the one its view answers with (public.feed_http)."""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from django.http import HttpRequest, JsonResponse
from django.urls import resolve, reverse

from core.dates import iso_ms
from core.links import absolute
from public.feed_http import public_feed
from public.mtnxml import has_ski_trails
from public.pages import of_public_system
from publishing.storage import GEOJSON_CONTENT_TYPE, absolute_public_url
from trails.models import TrailSystem

# How long a reader may keep the list: a feed's URL changes (the published file's at every
# compile), so readers come back as often as the fastest-moving feed they follow allows.
DISCOVERY_TTL = 60


def _always(system: TrailSystem) -> bool:
    return True


@dataclass(frozen=True)
class ListedFeed:
    name: str  # its name in the discovery file
    url_name: str  # its route (public.urls), taking the system's id
    format: str  # the media type it answers
    offered: Callable[[TrailSystem], bool] = _always  # whether the system has it


FEEDS = (
    ListedFeed("closures", "feed-closures", GEOJSON_CONTENT_TYPE),
    ListedFeed("open511_json", "feed-open511-json", "application/json"),
    ListedFeed("open511_xml", "feed-open511-xml", "application/xml"),
    ListedFeed("open511_jurisdiction", "feed-open511-jurisdiction", "application/xml"),
    ListedFeed("cap", "feed-cap", "application/atom+xml"),
    ListedFeed("mtnxml", "feed-mtnxml", "application/xml", has_ski_trails),
    ListedFeed("atom", "feed-atom", "application/atom+xml"),
    ListedFeed("ical", "feed-calendar", "text/calendar"),
    ListedFeed("schedules", "feed-schedules", "application/json"),
    ListedFeed("confirmations", "feed-confirmations", "application/json"),
    ListedFeed("grooming", "feed-grooming", "application/json"),
    ListedFeed("groomers", "feed-groomers", "application/json"),
)


def _ttl(url_name: str, system_id: str) -> int:
    """The ttl the feed's view answers with."""
    return resolve(reverse(url_name, args=[system_id])).func.feed_ttl


def _last_updated(system: TrailSystem) -> datetime:
    """When the system's published data last changed: its last compile, or a change of the
    system itself (its name, its terms) since."""
    return max(filter(None, (system.compiled_on, system.updated_on)))


def discovery_document(system: TrailSystem) -> dict:
    """The discovery file's body (public/schemas/discovery.json)."""
    feeds = []
    published = absolute_public_url(system.geo_json_path)
    if published:
        # A new name at every compile: current for as long as this list is.
        feeds.append(
            {
                "name": "published_map",
                "url": published,
                "format": GEOJSON_CONTENT_TYPE,
                "ttl": DISCOVERY_TTL,
            }
        )
    feeds.extend(
        {
            "name": feed.name,
            "url": absolute(feed.url_name, system.pk),
            "format": feed.format,
            "ttl": _ttl(feed.url_name, system.pk),
        }
        for feed in FEEDS
        if feed.offered(system)
    )
    data = {
        "trail_system_id": system.pk,
        "name": system.name,
        "language": system.language,
        "license_url": system.feeds_license_url,
    }
    if system.attribution_name:
        data["attribution_organization_name"] = system.attribution_name
    if system.attribution_url:
        data["attribution_url"] = system.attribution_url
    return {
        "last_updated": iso_ms(_last_updated(system)),
        "ttl": DISCOVERY_TTL,
        "data": {**data, "feeds": feeds},
    }


@public_feed(ttl=DISCOVERY_TTL)
@of_public_system
def discovery_view(request: HttpRequest, system: TrailSystem) -> JsonResponse:
    return JsonResponse(discovery_document(system))
