"""The status board: a phone-first page where a patroller sets trails and activities Open,
Caution or Closed in one tap, several at once, and confirms statuses ("all checked").

The page is rendered on the server and is one form: without JavaScript a tap is a plain post
that redirects back. webapp/board.js posts the same fields with `Accept: application/json`,
queues them on the phone while the connection is down, and reads `?format=json` for the
server's truth. Every change goes through the services the API uses, along the web app's path.
"""

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from django.contrib import messages
from django.http import HttpResponse, HttpResponseRedirect, JsonResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.gzip import gzip_page

from core.dates import iso_ms
from core.errors import DomainError
from trails import services
from trails.enums import ActivityStatus, TrailStatus, TrailType
from trails.models import Trail, TrailSystem
from trails.selectors import trails_of_system, unconfirmed_statuses
from webapp import roles
from webapp.admin.base import web_actor
from webapp.system_pages import system_or_404
from webapp.trail_admin import activity_label

# What a tap may set (None, "derive from activities", stays a desk decision).
TAP_STATUSES = (TrailStatus.OPEN, TrailStatus.CAUTION, TrailStatus.CLOSED)
STATUS_LABELS = dict(TrailStatus.choices)
LIFTS = gettext_lazy("Lifts")
OTHER_TRAILS = gettext_lazy("Other trails")


@dataclass
class BoardGroup:
    name: str
    trails: list[Trail] = field(default_factory=list)


def grouped(trails: Iterable[Trail]) -> list[BoardGroup]:
    """By each trail's first category, in the system's order, uncategorized trails after them
    and lifts last: how a patroller reads the mountain."""
    groups: dict[str, BoardGroup] = {}
    other, lifts = BoardGroup(str(OTHER_TRAILS)), BoardGroup(str(LIFTS))
    for trail in trails:
        if trail.type == TrailType.LIFT:
            lifts.trails.append(trail)
        elif trail.categories:
            name = trail.categories[0]
            groups.setdefault(name, BoardGroup(name)).trails.append(trail)
        else:
            other.trails.append(trail)
    return [group for group in (*groups.values(), other, lifts) if group.trails]


def trail_state(trail: Trail, unconfirmed: dict[str, datetime | None]) -> dict:
    """One trail as the board script reads it: the server's truth."""
    return {
        "id": trail.pk,
        "status": trail.status,
        "activities": {activity.value: activity.status for activity in trail.activities.all()},
        "confirmedOn": iso_ms(trail.status_confirmed_on),
        "unconfirmed": trail.pk in unconfirmed,
    }


def board_url(system: TrailSystem) -> str:
    return reverse("admin:trail_system_board", args=[system.pk])


class Refused(Exception):
    """A post the board cannot apply (unknown trail, status or action): said to the person."""


def _tap_status(value: str, *, for_activity: bool) -> str:
    allowed = ActivityStatus.values if for_activity else [s.value for s in TAP_STATUSES]
    if value not in allowed:
        raise Refused(_("Unknown status %(status)s.") % {"status": value})
    return value


def apply_post(system: TrailSystem, post, actor) -> tuple[list[str], str]:
    """Apply one post of the board's form: (ids of the trails it changed, what was done).

    - `tap` = "<trail id>|<activity or empty>|<status>": one trail or one activity;
    - `bulk` = a status, for every checked `trails`;
    - `confirm` = "selected" (the checked `trails`) or "all"."""
    if post.get("tap"):
        trail_id, _sep, rest = post["tap"].partition("|")
        activity, _sep, status = rest.partition("|")
        trail = trails_of_system(system).filter(pk=trail_id).first()
        if trail is None:
            raise Refused(_("This trail is no longer in the system."))
        status = _tap_status(status, for_activity=bool(activity))
        if activity:
            changes = {"activities": [{"value": activity, "status": status}]}
            done = _("%(trail)s, %(activity)s: %(status)s") % {
                "trail": trail.name,
                "activity": activity_label(activity),
                "status": STATUS_LABELS[status],
            }
        else:
            changes = {"status": status}
            done = _("%(trail)s: %(status)s") % {
                "trail": trail.name,
                "status": STATUS_LABELS[status],
            }
        services.change_trail(trail=trail, changes=changes, actor=actor)
        return [trail.pk], done
    selected = post.getlist("trails")
    if post.get("bulk"):
        if not selected:
            raise Refused(_("Select the trails to change first."))
        status = _tap_status(post["bulk"], for_activity=False)
        changed = services.set_trails_status(
            system=system, status=status, trail_ids=selected, actor=actor
        )
        count = len(changed)
        done = ngettext(
            "%(count)d trail set to %(status)s.", "%(count)d trails set to %(status)s.", count
        ) % {"count": count, "status": STATUS_LABELS[status]}
        return [trail["id"] for trail in changed], done
    if post.get("confirm") in ("selected", "all"):
        every = post["confirm"] == "all"
        if not every and not selected:
            raise Refused(_("Select the trails to confirm first."))
        count = services.confirm_trail_statuses(
            system=system, trail_ids=None if every else selected, actor=actor
        )
        done = ngettext(
            "Status confirmed for %(count)d trail.", "Status confirmed for %(count)d trails.", count
        ) % {"count": count}
        ids = None if every else selected
        return ids, done
    raise Refused(_("Nothing to do: tap a status."))


def _states(system: TrailSystem, ids: list[str] | None) -> list[dict]:
    trails = trails_of_system(system)
    if ids is not None:
        trails = trails.filter(pk__in=ids)
    unconfirmed = unconfirmed_statuses(system, now=timezone.now())
    return [trail_state(trail, unconfirmed) for trail in trails]


def _post(request, system: TrailSystem) -> HttpResponse:
    wants_json = "application/json" in request.headers.get("Accept", "")
    try:
        ids, done = apply_post(system, request.POST, web_actor(request))
    except (Refused, DomainError) as error:
        message = error.message if isinstance(error, DomainError) else str(error)
        if wants_json:
            return JsonResponse({"error": message}, status=400)
        messages.error(request, message)
        return HttpResponseRedirect(board_url(system))
    if wants_json:
        return JsonResponse({"done": done, "trails": _states(system, ids)})
    messages.success(request, done)
    return HttpResponseRedirect(board_url(system))


@gzip_page
def board(request, system_id: str, *, site) -> HttpResponse:
    """The board of a system the person may change trails of (any role on it); `?q=` keeps
    the trails whose name holds it (the search box, without JavaScript)."""
    system = system_or_404(request, system_id, roles.MEMBER)
    if request.method == "POST":
        return _post(request, system)
    if request.GET.get("format") == "json":
        return JsonResponse({"at": iso_ms(timezone.now()), "trails": _states(system, None)})
    now = timezone.now()
    search = request.GET.get("q", "").strip()
    trails = trails_of_system(system)
    if search:
        trails = trails.filter(name__icontains=search)
    trails = list(trails)
    unconfirmed = unconfirmed_statuses(system, now=now)
    for trail in trails:
        trail.unconfirmed_since = unconfirmed.get(trail.pk) if trail.pk in unconfirmed else False
        for activity in trail.activities.all():
            activity.label = activity_label(activity.value)
    context = {
        **site.each_context(request),
        "title": _("Status board"),
        "system": system,
        "groups": grouped(trails),
        "search": search,
        "trail_count": len(trails),
        "unconfirmed_count": len(unconfirmed),
        "unconfirmed_after_hours": system.unconfirmed_after_hours,
        "rendered_at": iso_ms(now),
        "tap_statuses": [(status.value, status.label) for status in TAP_STATUSES],
        "worker_url": reverse("admin:board_worker"),
        "board_texts": board_texts(),
    }
    return TemplateResponse(request, "webapp/board.html", context)


def board_texts() -> dict[str, str]:
    """The board script's words, in the page's language ({n}, {status}: filled in by it)."""
    return {
        "pending": _("Pending"),
        "saved": _("Saved"),
        "failed": _("Not saved"),
        "all_saved": _("Every change is saved."),
        "pending_one": _("{n} change waiting for the connection: keep this page open."),
        "pending_other": _("{n} changes waiting for the connection: keep this page open."),
        "failed_one": _("{n} change was refused:"),
        "failed_other": _("{n} changes were refused:"),
        "sign_in_again": _("Sign in again to send your changes; they are kept on this phone."),
        "retry": _("Try again"),
        "dismiss": _("Dismiss"),
        "select_first": _("Check the trails first."),
        "bulk_label": _("{n} checked trails: {status}"),
        "confirm_label": _("Confirm {n} checked trails"),
        "confirm_all_label": _("Confirm every status"),
    }


def worker(request) -> HttpResponse:
    """The board's service worker, served under /admin/trail-systems/ so that its scope holds
    every board: it keeps the last copy of a board and its files for a reload offline."""
    response = TemplateResponse(
        request, "webapp/board_worker.js", {}, content_type="text/javascript; charset=utf-8"
    )
    response["Cache-Control"] = "no-cache"
    return response
