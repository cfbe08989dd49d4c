"""A trail system's Grooming log page: a period's sessions per machine and per day with their
hours and distances, the totals, a map of the passes coloured by machine, the files for whoever
pays for the grooming (CSV, XLSX, a printable A4 page) and, for Administrators, approving the
period and reopening it. Every role of the system reads it."""

from datetime import date, datetime

import shapely
from django import forms
from django.conf import settings
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from shapely.geometry import mapping

from core.errors import DomainError
from grooming import approvals, log, log_files
from grooming.models import GroomingLogApproval, GroomingPass
from trails.models import TrailSystem
from trails.timezones import zone_of
from webapp import roles
from webapp.actors import web_actor
from webapp.system_pages import system_or_404
from webapp.zones import zone_now

# Above this many sessions the map would be slow on a phone: the page says so instead.
MAP_SESSIONS_MAX = 60
# Tracks are drawn simplified by this much (degrees, about 3 m): a 10-hour session at 1 Hz is
# 36,000 positions.
MAP_SIMPLIFY_DEGREES = 0.00003
# Machines' colours on the map and in the tables (told apart by people with colour blindness).
MACHINE_COLOURS = ("#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000")


class ReopenForm(forms.Form):
    reason = forms.CharField(label=_("Why reopen it?"), max_length=approvals.REASON_MAX)


def grooming_log_url(system: TrailSystem) -> str:
    return reverse("admin:trails_trailsystem_grooming_log", args=[system.pk])


def _local(text: str | None, zone) -> datetime | None:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(zone) if text else None


def _km(row: dict, *names: str) -> dict:
    """The row with each `xMeters` also as `xKm`."""
    return {**row, **{name.replace("Meters", "Km"): row[name] / 1000 for name in names}}


def _shown(document: dict, zone) -> dict:
    """The log for the template: times as local datetimes, distances in kilometres, each
    machine with its colour."""
    colours = {
        machine["machineId"]: MACHINE_COLOURS[i % len(MACHINE_COLOURS)]
        for i, machine in enumerate(document["totals"]["machines"])
    }
    sessions = [
        {
            **_km(session, "drivenMeters"),
            "trails": [_km(trail, "groomedMeters") for trail in session["trails"]],
            "day": date.fromisoformat(session["day"]),
            "started": _local(session["startedAt"], zone),
            "ended": _local(session["endedAt"], zone),
            "colour": colours.get(session["machineId"], MACHINE_COLOURS[-1]),
        }
        for session in document["sessions"]
    ]
    totals = document["totals"]
    return {
        **document,
        "sessions": sessions,
        "totals": {
            **_km(totals, "drivenMeters", "groomedMeters"),
            "trails": [_km(t, "lengthMeters", "groomedMeters") for t in totals["trails"]],
        },
        "machines": [
            {
                **_km(machine, "drivenMeters", "groomedMeters"),
                "colour": colours[machine["machineId"]],
            }
            for machine in totals["machines"]
        ],
        "approvals": [
            {
                **approval,
                "approved": _local(approval["approvedAt"], zone),
                "reopened": _local(approval["reopenedAt"], zone),
            }
            for approval in document["approvals"]
        ],
    }


def map_data(sessions: list[dict]) -> dict | None:
    """The sessions' tracks as GeoJSON, simplified, each with its machine's colour; None when
    there are too many to draw."""
    if not sessions or len(sessions) > MAP_SESSIONS_MAX:
        return None
    tracks = dict(
        GroomingPass.objects.filter(pk__in=[s["id"] for s in sessions]).values_list("id", "track")
    )
    features = []
    for session in sessions:
        lines = [line for line in (tracks.get(session["id"]) or {}).get("coordinates", []) if line]
        if not lines:
            continue
        simplified = shapely.simplify(
            shapely.MultiLineString([[p[:2] for p in line] for line in lines if len(line) > 1]),
            MAP_SIMPLIFY_DEGREES,
        )
        features.append(
            {
                "type": "Feature",
                "properties": {"machine": session["machine"], "colour": session["colour"]},
                "geometry": mapping(simplified),
            }
        )
    return {"type": "FeatureCollection", "features": features}


def _period(system: TrailSystem, request) -> tuple[log.Period, str]:
    """The period asked for (from and to in the address), else the week to today; a bad one
    is said above the form, and the default week shown."""
    try:
        return log.period(
            system=system, first=request.GET.get("from"), last=request.GET.get("to")
        ), ""
    except DomainError as refusal:
        return log.period(system=system, first=None, last=None), str(refusal)


def _act(request, system: TrailSystem, period: log.Period) -> None:
    """Approve the period, or reopen an approval: Administrators only."""
    if not (roles.is_super(request.user) or roles.holds(request.user, roles.ADMINISTRATOR, system)):
        raise PermissionDenied
    try:
        if request.POST.get("action") == "approve":
            approvals.approve_grooming_log(system=system, period=period, actor=web_actor(request))
            messages.success(request, _("The period is approved: its figures are fixed."))
            return
        approval = GroomingLogApproval.objects.filter(
            trail_system=system, pk=request.POST.get("approval", "")
        ).first()
        form = ReopenForm(request.POST)
        if approval is None or not form.is_valid():
            messages.error(request, _("Say why the period is reopened."))
            return
        approvals.reopen_grooming_log(
            approval=approval, actor=web_actor(request), reason=form.cleaned_data["reason"]
        )
        messages.success(request, _("The period is open again."))
    except DomainError as refusal:
        messages.error(request, refusal.message)


def grooming_log(model_admin, request, system_id: str):
    system = system_or_404(request, system_id, roles.MEMBER)
    zone = zone_of(system)
    period, period_error = _period(system, request)
    if request.method == "POST":
        _act(request, system, period)
        return HttpResponseRedirect(
            f"{grooming_log_url(system)}?from={period.first_day}&to={period.last_day}"
        )
    document = log.grooming_log(system=system, period=period)
    kind = request.GET.get("format")
    if kind in log_files.FILES:
        media_type, write = log_files.FILES[kind]
        response = HttpResponse(write(document), content_type=media_type)
        response["Content-Disposition"] = (
            f'attachment; filename="{log_files.file_name(document, kind)}"'
        )
        return response
    shown = _shown(document, zone)
    context = {
        **model_admin.admin_site.each_context(request),
        "title": _("Grooming log of %(system)s") % {"system": system.name},
        "opts": model_admin.opts,
        "system": system,
        "log": shown,
        "period": period,
        "period_error": period_error,
        "reopen_form": ReopenForm(),
        "zone_now": zone_now(zone),
        "may_approve": roles.is_super(request.user)
        or roles.holds(request.user, roles.ADMINISTRATOR, system),
        "query": f"from={period.first_day}&to={period.last_day}",
        "map_data": map_data(shown["sessions"]),
        "map_sessions_max": MAP_SESSIONS_MAX,
        "tile_url": settings.MAP_TILE_URL,
        "tile_attribution": settings.MAP_TILE_ATTRIBUTION,
    }
    template = "webapp/grooming_log_print.html" if "print" in request.GET else None
    return TemplateResponse(request, template or "webapp/grooming_log.html", context)
