"""Rider reports in the web app: the board's list of new reports (webapp/board_reports.html,
re-read by webapp/reports.js every few seconds), the Reports page of a system with its map,
a report's photo, and the one-tap actions (close the nearest trail, resolve with a note,
dismiss; a notice is the update form prefilled). Any role of the system may see and triage;
the reporter's address is shown to Administrators only."""

from urllib.parse import urlencode

from django.contrib import messages
from django.http import Http404, HttpResponse, HttpResponseRedirect, JsonResponse
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from core.dates import iso_ms
from core.errors import DomainError, Invalid, NotFound, refusal_response
from publishing.storage import absolute_public_url
from reports import selectors, services, storage
from reports.models import Report, ReportAlert, State
from reports.photos import STORED_CONTENT_TYPE
from trails.enums import Role, TrailStatus
from trails.models import TrailSystem
from trails.selectors import role_for, trail_summaries
from trails.timezones import zone_name
from webapp import roles
from webapp.actors import web_actor
from webapp.system_pages import system_or_404
from webapp.twins import TWIN_FIELDS, twin_details

BOARD_LIST = 10  # new reports listed on the board; the Reports page has them all
PAGE_LIST = 200


def reports_url(system: TrailSystem) -> str:
    return reverse("admin:trail_system_reports", args=[system.pk])


def _is_administrator(request, system: TrailSystem) -> bool:
    return roles.is_super(request.user) or role_for(request.user, system) == Role.ADMINISTRATOR


def notice_url(report: Report) -> str:
    """The update form, prefilled with a notice from the report (the manager reviews it)."""
    words = [report.get_category_display()]
    if report.trail:
        words.append(_("near %(trail)s") % {"trail": report.trail.name})
    description = " ".join(words) + (f": {report.description}" if report.description else ".")
    query = {
        "trail_system": report.trail_system_id,
        "type": "notice",
        "severity": "warning",
        "description": description,
    }
    if report.trail_id:
        query["trails"] = report.trail_id
    return f"{reverse('admin:updates_update_add')}?{urlencode(query)}"


def report_rows(system: TrailSystem, reports: list[Report], *, with_email: bool) -> list[dict]:
    """The reports as the page and its script show them: a trail that shares its name with
    another told apart as the board tells it ("Nordic · 0.34 km · west part"), and for an
    Administrator every reporter's address of a grouped report (a fixed number of queries)."""
    twins = twin_details(trail_summaries(system, *TWIN_FIELDS))
    addresses: dict[str, list[str]] = {}
    if with_email:
        for report in reports:
            addresses[report.pk] = [report.email] if report.email else []
        same = Report.objects.filter(duplicate_of__in=[report.pk for report in reports])
        for primary, email in (
            same.exclude(email="")
            .order_by("created_on", "id")
            .values_list("duplicate_of_id", "email")
        ):
            if email not in addresses[primary]:
                addresses[primary].append(email)
    return [
        report_row(
            report,
            with_email=with_email,
            trail_details=twins.get(report.trail_id, ""),
            emails=addresses.get(report.pk, []),
        )
        for report in reports
    ]


def report_row(
    report: Report, *, with_email: bool, trail_details: str = "", emails: list[str] | None = None
) -> dict:
    """One report as the page and its script show it (text, never markup)."""
    system_id = report.trail_system_id
    return {
        "id": report.pk,
        "category": report.category,
        "categoryLabel": report.get_category_display(),
        "description": report.description,
        "lat": report.lat,
        "lng": report.lng,
        "trailName": report.trail.name if report.trail_id else "",
        "trailDetails": trail_details,
        "metres": round(report.trail_distance_km * 1000)
        if report.trail_distance_km is not None
        else None,
        "count": report.count,
        "state": report.state,
        "stateLabel": report.get_state_display(),
        "note": report.note,
        "createdOn": iso_ms(report.created_on),
        "photoUrl": reverse("admin:trail_system_report_photo", args=[system_id, report.pk])
        if report.photo
        else "",
        "actionUrl": reverse("admin:trail_system_report", args=[system_id, report.pk]),
        "noticeUrl": notice_url(report),
        "trailClosed": bool(report.trail_id) and report.trail.status == TrailStatus.CLOSED,
        "email": report.email if with_email else "",
        "emails": emails or [],
    }


def board_reports(request, system: TrailSystem) -> dict:
    """The board's part: the count of new reports and the newest of them."""
    with_email = _is_administrator(request, system)
    new = selectors.reports_of_system(system, state=State.NEW)
    return {
        "reports_url": reports_url(system),
        "reports_count": new.count(),
        "reports_rows": report_rows(system, list(new[:BOARD_LIST]), with_email=with_email),
        "report_texts": report_texts(),
        "report_zone": zone_name(system),
    }


def reports_page(request, system_id: str, *, site) -> HttpResponse:
    """GET: the page (`?state=` new by default, or all); `?format=json`: the new reports for
    the board's and the page's script."""
    system = system_or_404(request, system_id, roles.MEMBER)
    with_email = _is_administrator(request, system)
    if request.GET.get("format") == "json":
        new = selectors.reports_of_system(system, state=State.NEW)
        limit = BOARD_LIST if request.GET.get("board") else PAGE_LIST
        return JsonResponse(
            {
                "at": iso_ms(timezone.now()),
                "count": new.count(),
                "reports": report_rows(system, list(new[:limit]), with_email=with_email),
            }
        )
    state = request.GET.get("state", State.NEW)
    shown = selectors.reports_of_system(system, state=state if state in State.values else None)
    rows = report_rows(system, list(shown[:PAGE_LIST]), with_email=with_email)
    context = {
        **site.each_context(request),
        "title": _("Rider reports"),
        "system": system,
        "rows": rows,
        "state": state,
        "states": [("new", _("New")), ("resolved", _("Resolved")), ("dismissed", _("Dismissed"))],
        "is_administrator": with_email,
        "alert_on": ReportAlert.objects.filter(trail_system=system, user=request.user).exists(),
        "file_url": absolute_public_url(system.geo_json_path) if system.geo_json_path else "",
        "centre": [system.lat, system.lng] if system.lat is not None else None,
        "board_url": reverse("admin:trail_system_board", args=[system.pk]),
        "texts": report_texts(),
        "report_zone": zone_name(system),
    }
    return TemplateResponse(request, "webapp/reports.html", context)


def report_texts() -> dict[str, str]:
    """The script's words, in the page's language."""
    return {
        "none": _("No new report."),
        "count": _("{n} new"),
        "near": _("{metres} m from {trail}"),
        "reports": _("{n} reports of this"),
        "close": _("Close {trail}"),
        "notice": _("Post a notice"),
        "resolve": _("Resolved"),
        "dismiss": _("Dismiss"),
        "note": _("Note to the rider (sent when resolved)"),
        "photo": _("Photo of the report"),
        "from": _("From: {email}"),
    }


def _act(request, system: TrailSystem, report: Report) -> str:
    action = request.POST.get("action", "")
    actor = web_actor(request)
    if action == "close":
        name = services.close_reported_trail(report=report, actor=actor)
        return _("%(trail)s: Closed") % {"trail": name}
    if action in (State.RESOLVED, State.DISMISSED, State.NEW):
        services.change_report(
            report=report, state=action, note=request.POST.get("note"), actor=actor
        )
        return {
            State.RESOLVED: _("Report resolved."),
            State.DISMISSED: _("Report dismissed."),
            State.NEW: _("Report back in the new ones."),
        }[action]
    raise Invalid("invalid_field", _("Nothing to do."))


def _back(request, system: TrailSystem) -> str:
    """Back to the board when the tap came from it, else to the Reports page."""
    if request.POST.get("from") == "board":
        return reverse("admin:trail_system_board", args=[system.pk])
    return reports_url(system)


@require_POST
def report_action(request, system_id: str, report_id: str) -> HttpResponse:
    """One tap on a report; the script posts it with `Accept: application/json`."""
    system = system_or_404(request, system_id, roles.MEMBER)
    wants_json = "application/json" in request.headers.get("Accept", "")
    try:
        report = selectors.reports_of_system(system).filter(pk=report_id).first()
        if report is None:
            raise NotFound("report_not_found", _("This report is no longer here."))
        done = _act(request, system, report)
    except DomainError as error:
        if wants_json:
            return refusal_response(error)
        messages.error(request, str(error))
        return HttpResponseRedirect(_back(request, system))
    if wants_json:
        return JsonResponse({"done": done})
    messages.success(request, done)
    return HttpResponseRedirect(_back(request, system))


@require_POST
def report_alert(request, system_id: str) -> HttpResponse:
    """An Administrator turns the e-mail per new report on or off."""
    system = system_or_404(request, system_id, roles.ADMINISTRATOR)
    on = request.POST.get("alert") == "on"
    services.set_report_alert(system=system, user=request.user, on=on)
    if on:
        messages.success(request, _("You will get an e-mail for each new report."))
    else:
        messages.success(request, _("No more e-mails about new reports."))
    return HttpResponseRedirect(reports_url(system))


def report_photo(request, system_id: str, report_id: str) -> HttpResponse:
    system = system_or_404(request, system_id, roles.MEMBER)
    report = Report.objects.filter(trail_system=system, pk=report_id).exclude(photo="").first()
    body = storage.read_photo(report.photo) if report is not None else None
    if body is None:
        raise Http404
    response = HttpResponse(body, content_type=STORED_CONTENT_TYPE)
    response["Cache-Control"] = "private, max-age=3600"
    return response


def routes(site) -> list:
    """The web app's report routes, beside the board's."""
    prefix = "trail-systems/<str:system_id>/reports/"
    return [
        path(
            prefix,
            site.admin_view(lambda request, system_id: reports_page(request, system_id, site=site)),
            name="trail_system_reports",
        ),
        path(f"{prefix}alert/", site.admin_view(report_alert), name="trail_system_report_alert"),
        path(
            f"{prefix}<str:report_id>/",
            site.admin_view(report_action),
            name="trail_system_report",
        ),
        path(
            f"{prefix}<str:report_id>/photo",
            site.admin_view(report_photo),
            name="trail_system_report_photo",
        ),
    ]
