"""The time zone a form's dates and times are read in, said with the time there now
("America/Boise, now 05:03"): a wrong guess would move a closure or an expiry by hours."""

from collections.abc import Callable, Iterable
from datetime import tzinfo
from zoneinfo import ZoneInfo

from django.contrib.admin.utils import unquote
from django.http import HttpResponse
from django.template.response import SimpleTemplateResponse
from django.utils import timezone
from django.utils.translation import gettext as _

from trails.models import TrailSystem
from trails.selectors import systems_with_roles
from trails.timezones import zone_name, zone_names, zone_of

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


class ChangedInSystemZone:
    """An admin row's page in the zone of the row's system: its stored times are shown, and its
    forms read, in that zone, named under the page's title ("Times are in America/Boise.")."""

    system_of_row = "trail_system"  # the lookup from a row to its system ("": the row is one)

    def page_system(self, request, object_id: str | None) -> TrailSystem | None:
        """The system of the row the page is for; None on an add page or for a row not found."""
        row = self.get_object(request, unquote(object_id)) if object_id else None
        for name in filter(None, self.system_of_row.split("__")):
            row = getattr(row, name, None)
        return row

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        system = self.page_system(request, object_id)
        if system is None:
            return super().changeform_view(request, object_id, form_url, extra_context)
        said = _("Times are in %(zone)s.") % {"zone": zone_name(system)}
        context = {"times_in": said, **(extra_context or {})}
        return in_system_zone(
            system,
            lambda: super(ChangedInSystemZone, self).changeform_view(
                request, object_id, form_url, context
            ),
        )


class ListedInSystemZone(ChangedInSystemZone):
    """An admin list whose times are shown in the zone of the systems it lists when they share
    one (the system picked in its filter, or every system of the person), and named above it
    ("Times are in America/Boise."); in UTC, named, when they do not."""

    system_filter = "trail_system__id__exact"  # the list's filter naming one system

    def listed_systems(self, request) -> list[TrailSystem]:
        picked = request.GET.get(self.system_filter)
        restricted_to = [picked] if picked else None
        return systems_with_roles(request.user, restricted_to=restricted_to, everything=True)

    def listed_zone(self, request) -> TrailSystem | None:
        """One of the systems listed when they all share a zone; None otherwise."""
        systems = self.listed_systems(request)
        return systems[0] if len(set(zone_names(systems).values())) == 1 else None

    def zone_said(self, system: TrailSystem | None) -> str:
        """Above the list: the zone its times are in (`system`: one of the list's one zone)."""
        return _("Times are in %(zone)s.") % {"zone": zone_name(system) if system else "UTC"}

    def changelist_view(self, request, extra_context=None):
        system = self.listed_zone(request)
        context = {"subtitle": self.zone_said(system), **(extra_context or {})}

        def answer():
            return super(ListedInSystemZone, self).changelist_view(request, context)

        return in_system_zone(system, answer) if system else answer()
