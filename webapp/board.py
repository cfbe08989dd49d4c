"""The status board: a phone-first page where a patroller sets trails and activities Open,
Caution or Closed in one tap, several at once, and confirms statuses ("all checked").

The page is rendered on the server and is one form: without JavaScript a tap is a plain post
that redirects back. webapp/board.js posts the same fields with `Accept: application/json`,
queues them on the phone while the connection is down, and reads `?format=json` for the
server's truth. Every change goes through the services the API uses, along the web app's path.
"""

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from zoneinfo import ZoneInfo

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.http import HttpResponse, HttpResponseRedirect, JsonResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format, time_format
from django.utils.html import escape
from django.utils.timesince import timesince
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.gzip import gzip_page

from core.dates import iso_ms
from core.errors import DomainError, Invalid, refusal_response
from trails import services
from trails.enums import ActivityStatus, TrailStatus, TrailType
from trails.models import Trail, TrailSystem
from trails.selectors import (
    trail_geometries,
    trail_summaries,
    trails_of_system,
    unconfirmed_statuses,
)
from trails.timezones import zone_of
from webapp import roles
from webapp.actors import web_actor
from webapp.reports_page import board_reports
from webapp.system_pages import system_or_404
from webapp.trail_admin import activity_label
from webapp.twins import TWIN_FIELDS, twin_details, twin_groups, twin_maps

# What a tap may set (None, "derive from activities", stays a desk decision).
TAP_STATUSES = (TrailStatus.OPEN, TrailStatus.CAUTION, TrailStatus.CLOSED)
STATUS_LABELS = dict(TrailStatus.choices)
LIFTS = gettext_lazy("Lifts")
OTHER_TRAILS = gettext_lazy("Other trails")


# A larger system's board first lists its groups, each a page of its own: a phone gets a
# page it can load and read, not thousands of rows (bench/bench_board.py).
TRAILS_ON_ONE_PAGE = 400
LIFTS_KEY, OTHER_KEY = "lifts", "other"


@dataclass
class BoardGroup:
    key: str
    name: str
    ids: list[str] = field(default_factory=list)
    statuses: Counter = field(default_factory=Counter)
    rows: list[str] = field(default_factory=list)  # the trails' HTML, when shown


def grouped(rows: Iterable[tuple]) -> list[BoardGroup]:
    """(id, name, type, categories, status) rows, by each trail's first category in the
    system's order, uncategorized trails after them and lifts last: how a patroller reads the
    mountain."""
    groups: dict[str, BoardGroup] = {}
    other, lifts = BoardGroup(OTHER_KEY, str(OTHER_TRAILS)), BoardGroup(LIFTS_KEY, str(LIFTS))
    for trail_id, _name, trail_type, categories, status in rows:
        if trail_type == TrailType.LIFT:
            group = lifts
        elif categories:
            key = f"c:{categories[0]}"
            group = groups.setdefault(key, BoardGroup(key, categories[0]))
        else:
            group = other
        group.ids.append(trail_id)
        group.statuses[status] += 1
    return [group for group in (*groups.values(), other, lifts) if group.ids]


@dataclass
class Shown:
    """What one board page shows: its groups, the ids of the trails listed, and whether it
    is the list of groups of a large system."""

    groups: list[BoardGroup]
    ids: list[str]
    group_list: bool
    total: int
    capped: bool


def shown(system: TrailSystem, query) -> Shown:
    """The trails a page shows for its `q` (search) and `group`: every trail of a system of
    at most TRAILS_ON_ONE_PAGE, else the list of groups until one is chosen or searched."""
    rows = list(trails_of_system(system).values_list("id", "name", "type", "categories", "status"))
    search = query.get("q", "").strip().lower()
    if search:
        rows = [row for row in rows if search in row[1].lower()]
    capped = len(rows) > TRAILS_ON_ONE_PAGE and bool(search)
    rows = rows[:TRAILS_ON_ONE_PAGE] if capped else rows
    groups = grouped(rows)
    if query.get("group"):
        groups = [group for group in groups if group.key == query["group"]]
    elif len(rows) > TRAILS_ON_ONE_PAGE:
        return Shown(groups, [], True, len(rows), capped)
    return Shown(groups, [i for group in groups for i in group.ids], False, len(rows), capped)


def cascade_notes() -> dict[str, str]:
    """What a trail's button does to its activities, said on the button (issue 33)."""
    return {
        TrailStatus.OPEN: escape(_("+ closed activities")),
        TrailStatus.CAUTION: escape(_("+ closed activities")),
        TrailStatus.CLOSED: escape(_("+ every activity")),
    }


def _tap_buttons(
    value_prefix: str, status: str, labels: list[tuple[str, str]], notes: dict[str, str]
) -> str:
    return "".join(
        f'<button type="submit" name="tap" value="{value_prefix}|{value}" class="tap '
        f'tap-{value.lower()}" data-status="{value}" aria-pressed="{str(value == status).lower()}">'
        f"{label}{_note(notes.get(value))}</button>"
        for value, label in labels
    )


def _note(text: str | None) -> str:
    return f'<small class="tap-note">{text}</small>' if text else ""


@dataclass
class Confirmations:
    """How the board words a last confirmation: the time in the system's zone, and the person
    (their e-mail address when the service has it, else their uid)."""

    zone: ZoneInfo
    now: datetime
    people: dict[str, str]

    @classmethod
    def of(cls, system: TrailSystem, trails: Iterable[Trail], now: datetime) -> "Confirmations":
        uids = {trail.status_confirmed_by for trail in trails if trail.status_confirmed_by}
        people = dict(
            get_user_model()
            .objects.filter(pk__in=uids)
            .exclude(email="")
            .values_list("pk", "email")
        )
        return cls(zone_of(system), now, people)

    def time(self, moment: datetime) -> str:
        """10:42 today, else "Nov. 26, 10:42", in the system's zone."""
        local = timezone.localtime(moment, self.zone)
        if local.date() == timezone.localtime(self.now, self.zone).date():
            return time_format(local, "H:i")
        return date_format(local, "M j, H:i")

    def text(self, trail: Trail) -> str:
        if trail.status_confirmed_on is None:
            return _("Never confirmed")
        who = trail.status_confirmed_by
        return _("Last confirmed %(time)s by %(person)s") % {
            "time": self.time(trail.status_confirmed_on),
            "person": self.people.get(who, who) or _("someone"),
        }


@dataclass
class Twins:
    """The trails of the system that share a name: what tells each apart, and its small map."""

    details: dict[str, str]
    maps: dict[str, str]

    @classmethod
    def of(cls, system: TrailSystem, shown_ids: Iterable[str]) -> "Twins":
        summaries = list(trail_summaries(system, *TWIN_FIELDS))
        groups = twin_groups(summaries)
        shown = set(shown_ids)
        twins_of = {
            trail.pk: [twin.pk for twin in group]
            for group in groups
            for trail in group
            if trail.pk in shown
        }
        geometries = trail_geometries({pk for group in twins_of.values() for pk in group})
        return cls(twin_details(summaries), twin_maps(twins_of, geometries))

    def html(self, trail_id: str) -> str:
        if trail_id not in self.details:
            return ""
        small_map = self.maps.get(trail_id, "")
        if small_map:
            summary = escape(_("Map"))
            small_map = (
                f'<details class="twin-map"><summary>{summary}</summary>{small_map}</details>'
            )
        return (
            f'<div class="twin"><span class="twin-details">{escape(self.details[trail_id])}'
            f"</span>{small_map}</div>"
        )


def trail_html(
    trail: Trail,
    since,
    now: datetime,
    labels: list[tuple[str, str]],
    notes: dict[str, str],
    confirmations: Confirmations,
    twins: Twins,
    closures_url: str,
) -> str:
    """One trail's card, built here rather than by the template engine, which takes seconds
    for a few thousand trails. Every value from data is escaped."""
    trail_id, name = escape(trail.pk), escape(trail.name)
    unconfirmed = since is not False
    if since is None:
        words = _("Never confirmed")
    elif unconfirmed:
        words = _("Not confirmed for %(since)s") % {"since": timesince(since, now)}
    note = f'<p class="unconfirmed-note">{escape(words)}</p>' if unconfirmed else ""
    if since is not None:  # "never" is said once
        note += f'<p class="confirmed-note">{escape(confirmations.text(trail))}</p>'

    activities = trail.activities.all()
    activity_rows = "".join(
        f'<div class="board-activity" data-activity="{escape(activity.value)}" '
        f'data-status="{escape(activity.status)}"><span class="activity-name">'
        f'{escape(activity_label(activity.value))}</span><span class="sync-state" '
        f'data-role="sync"></span><div class="taps" role="group" aria-label="{name}, '
        f'{escape(activity_label(activity.value))}">'
        f"{_tap_buttons(f'{trail_id}|{escape(activity.value)}', activity.status, labels, {})}"
        "</div></div>"
        for activity in activities
    )
    return (
        f'<li class="board-trail{" is-unconfirmed" if unconfirmed else ""}" id="trail-{trail_id}" '
        f'data-trail="{trail_id}" data-status="{escape(trail.status)}"><div class="trail-head">'
        f'<label class="pick"><input type="checkbox" name="trails" value="{trail_id}"> '
        f'<span class="trail-name">{name}</span></label><span class="sync-state" '
        f'data-role="sync"></span></div>{twins.html(trail.pk)}'
        f'<div class="taps" role="group" aria-label="{name}">'
        f"{_tap_buttons(f'{trail_id}|', trail.status, labels, notes if activities else {})}"
        f'</div>{note}{activity_rows}<a class="close-part" href="{closures_url}?trail={trail_id}">'
        f"{escape(_('Close part of this trail'))}</a></li>"
    )


def trail_state(
    trail: Trail, unconfirmed: dict[str, datetime | None], confirmations: Confirmations
) -> dict:
    """One trail as the board script reads it: the server's truth."""
    return {
        "id": trail.pk,
        "status": trail.status,
        "activities": {activity.value: activity.status for activity in trail.activities.all()},
        "confirmedOn": iso_ms(trail.status_confirmed_on),
        "confirmed": confirmations.text(trail),
        "unconfirmed": trail.pk in unconfirmed,
    }


def board_url(system: TrailSystem) -> str:
    return reverse("admin:trail_system_board", args=[system.pk])


class Refused(Invalid):
    """A post the board cannot apply (unknown trail, status or action): said to the person."""

    def __init__(self, message: str):
        super().__init__("refused", message)


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
        # Open means open: a trail set Open or Caution opens its Closed activities too.
        services.change_trail(trail=trail, **changes, actor=actor, reopen_activities=not activity)
        return [trail.pk], done
    selected = post.getlist("trails")
    if post.get("bulk"):
        if not selected:
            raise Refused(_("Select the trails to change first."))
        status = _tap_status(post["bulk"], for_activity=False)
        changed = services.set_trails_status(
            system=system, status=status, trail_ids=selected, actor=actor, reopen_activities=True
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
        at = Confirmations(zone_of(system), timezone.now(), {}).time(timezone.now())
        done = ngettext(
            "Confirmed %(count)d trail at %(time)s.",
            "Confirmed %(count)d trails at %(time)s.",
            count,
        ) % {"count": count, "time": at}
        ids = None if every else selected
        return ids, done
    raise Refused(_("Nothing to do: tap a status."))


def _states(system: TrailSystem, ids: list[str] | None) -> list[dict]:
    trails = trails_of_system(system)
    if ids is not None:
        trails = trails.filter(pk__in=ids)
    now = timezone.now()
    unconfirmed = unconfirmed_statuses(system, now=now)
    trails = list(trails)
    confirmations = Confirmations.of(system, trails, now)
    return [trail_state(trail, unconfirmed, confirmations) for trail in trails]


def _post(request, system: TrailSystem) -> HttpResponse:
    wants_json = "application/json" in request.headers.get("Accept", "")
    try:
        ids, done = apply_post(system, request.POST, web_actor(request))
    except DomainError as error:
        if wants_json:
            return refusal_response(error)
        messages.error(request, str(error))
        return HttpResponseRedirect(board_url(system))
    if wants_json:
        return JsonResponse({"done": done, "trails": _states(system, ids)})
    messages.success(request, done)
    return HttpResponseRedirect(board_url(system))


@gzip_page
def board(request, system_id: str, *, site) -> HttpResponse:
    """The board of a system the person may change trails of (any role on it). `?q=` keeps
    the trails whose name holds it (the search box without JavaScript), `?group=` one group;
    `?format=json` answers the same trails' statuses (the script's refresh)."""
    system = system_or_404(request, system_id, roles.MEMBER)
    if request.method == "POST":
        return _post(request, system)
    now = timezone.now()
    page = shown(system, request.GET)
    if request.GET.get("format") == "json":
        return JsonResponse({"at": iso_ms(now), "trails": _states(system, page.ids)})
    unconfirmed = unconfirmed_statuses(system, now=now)
    labels = [(status.value, escape(status.label)) for status in TAP_STATUSES]
    notes = cascade_notes()
    trails = {trail.pk: trail for trail in trails_of_system(system).filter(pk__in=page.ids)}
    confirmations = Confirmations.of(system, trails.values(), now)
    twins = Twins.of(system, trails)
    closures_url = reverse("admin:trails_trailsystem_closures", args=[system.pk])
    for group in page.groups:
        group.rows = [
            trail_html(
                trails[i],
                unconfirmed.get(i, False),
                now,
                labels,
                notes,
                confirmations,
                twins,
                closures_url,
            )
            for i in group.ids
            if i in trails
        ]
    context = {
        **site.each_context(request),
        "title": _("Status board"),
        "system": system,
        "page": page,
        "group_statuses": [(status.value, status.label) for status in TAP_STATUSES],
        "search": request.GET.get("q", "").strip(),
        "trail_count": page.total,
        "unconfirmed_count": len(unconfirmed),
        "unconfirmed_after_hours": system.unconfirmed_after_hours,
        "rendered_at": iso_ms(now),
        "tap_statuses": [(value, label, notes[value]) for value, label in labels],
        "trails_on_one_page": TRAILS_ON_ONE_PAGE,
        "worker_url": reverse("admin:board_worker"),
        "board_texts": board_texts(),
        **board_reports(request, system),
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
