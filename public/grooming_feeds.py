"""The public map's grooming data: /feeds/<id>/grooming.json (each trail's last grooming and
its freshness bucket, for the Grooming view) and /feeds/<id>/groomers.json (the machines
grooming now, where the system shows groomers live; empty otherwise)."""

from django.http import HttpRequest, JsonResponse
from django.utils import timezone

from core.dates import iso_ms
from grooming import selectors
from public.feed_http import public_feed
from public.feeds import FEED_MAX_AGE
from public.pages import of_public_system
from trails.models import TrailSystem
from trails.timezones import zone_name, zone_of
from updates.types import SURFACE_CONDITION_CATALOG

# Machines move: the list is never kept for long (pages read it while their stream is down).
GROOMERS_MAX_AGE = 5


@public_feed(ttl=FEED_MAX_AGE)
@of_public_system
def grooming_json_view(request: HttpRequest, system: TrailSystem) -> JsonResponse:
    """Every trail ever groomed: when, with which condition (in the system's language), and
    its bucket of time since groomed in the system's time zone."""
    zone, now = zone_of(system), timezone.now()
    trails = []
    for entry in selectors.last_groomed(system.pk):
        condition = SURFACE_CONDITION_CATALOG.get(entry.condition)
        trails.append(
            {
                "trailId": entry.trail_id,
                "lastGroomed": iso_ms(entry.last_groomed_on),
                "condition": entry.condition,
                "conditionText": condition.entry(system.language)["text"]
                if condition
                else entry.condition,
                "bucket": selectors.freshness_bucket(entry.last_groomed_on, zone, now),
            }
        )
    body = {"trailSystemId": system.pk, "timeZone": zone_name(system), "trails": trails}
    return JsonResponse(body)


@public_feed(ttl=GROOMERS_MAX_AGE)
@of_public_system
def groomers_json_view(request: HttpRequest, system: TrailSystem) -> JsonResponse:
    """The machines grooming now (name and last position); `[]` unless `groomersLive`."""
    groomers = [groomer.document() for groomer in selectors.groomers_now(system)]
    body = {"trailSystemId": system.pk, "groomers": groomers}
    return JsonResponse(body)
