"""The time zone a form's dates and times are read in, said with the time there now
("America/Boise, now 05:03"): a wrong guess would move a closure or an expiry by hours."""

from collections.abc import Callable, Iterable
from datetime import tzinfo
from zoneinfo import ZoneInfo

from django.http import HttpResponse
from django.template.response import SimpleTemplateResponse
from django.utils import timezone
from django.utils.translation import gettext as _

from trails.models import TrailSystem
from trails.timezones import zone_names, zone_of

ZONES_LISTED = 4  # a person with systems in more zones reads the first ones, then "..."


def zone_now(zone: tzinfo | None = None) -> str:
    """ "America/Boise, now 05:03"; without a zone, the one the page reads times in."""
    zone = zone or timezone.get_current_timezone()
    now = timezone.localtime(timezone.now(), zone)
    return _("%(zone)s, now %(time)s") % {
        "zone": getattr(zone, "key", str(zone)),
        "time": now.strftime("%H:%M"),
    }


def zones_now(systems: Iterable[TrailSystem]) -> str:
    """The zone of the systems a form may be for: one zone as zone_now says it; several,
    each followed by its systems' names ("America/Boise, now 05:03 (Lost Trail)")."""
    systems = list(systems)
    zones = zone_names(systems)
    by_zone: dict[str, list[str]] = {}
    for system in systems:
        by_zone.setdefault(zones[system.pk], []).append(system.name)
    if len(by_zone) <= 1:
        return zone_now(ZoneInfo(next(iter(by_zone), "UTC")))
    said = [
        f"{zone_now(ZoneInfo(zone))} ({', '.join(names)})"
        for zone, names in list(by_zone.items())[:ZONES_LISTED]
    ]
    return "; ".join(said) + ("; ..." if len(by_zone) > ZONES_LISTED else "")


def in_system_zone(system: TrailSystem, answer: Callable[[], HttpResponse]) -> HttpResponse:
    """A system's page, read and rendered in the system's zone: every time it shows, every time
    its forms read, and the zone `zone_now()` names, are the system's, not the server's UTC."""
    with timezone.override(zone_of(system)):
        response = answer()
        if isinstance(response, SimpleTemplateResponse):
            response.render()
    return response
