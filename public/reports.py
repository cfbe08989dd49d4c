"""POST /report/<system id>: a rider's problem report from the map or the embed (reports/).

Anonymous, so bounded: every post per client (an IPv6 client by its /64), which catches junk;
the reports kept over the whole site in the last hour, and per system per day (its
reportsPerDay, exact, counted by the service), which a refused post never spends. The form
is posted by the map's script (Accept: application/json, a JSON answer) or, without script,
as a plain form (an HTML page that keeps what was typed). No session is involved, so no CSRF
token: a forged post could do no more than the rider's own, and the bounds hold either way."""

from datetime import timedelta

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext, ngettext
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from core import ratelimit
from core.clients import counted_client
from core.errors import Invalid
from public.report_texts import categories
from public.selectors import public_system
from public.views import not_found
from reports.metrics import reports_received, reports_refused
from reports.photos import PHOTO_BYTES_MAX, PhotoRefused
from reports.selectors import reports_kept_since
from reports.services import ReportsPaused, file_report
from trails.models import TrailSystem
from updates.sms_budget import seconds_to_tomorrow

# The form's fields and a photo at its limit, with room for the multipart framing.
BODY_MAX = PHOTO_BYTES_MAX + 256 * 1024
HONEYPOT = "website"  # hidden from people; a bot fills it
FIELDS = ("category", "description", "lat", "lng", "email")
TEN_MINUTES, DAY, HOUR = 600, 86_400, 3600


def _wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def _contact(system: TrailSystem) -> str:
    return " · ".join(c for c in (system.phone_number, system.website) if c)


class Refusal(Exception):
    def __init__(self, status: int, code: str, message: str, reason: str, *, retry: int = 0):
        super().__init__(message)
        self.status, self.code, self.message, self.reason, self.retry = (
            status,
            code,
            message,
            reason,
            retry,
        )


def _form_context(request: HttpRequest, system: TrailSystem) -> dict:
    return {
        "system": system,
        "language": system.language,
        "categories": categories(),
        "values": {name: request.POST.get(name, "") for name in FIELDS},
        "honeypot": HONEYPOT,
    }


def _check_bounds(request: HttpRequest) -> None:
    client = counted_client(request)
    if not (
        ratelimit.allow(
            "report-client",
            client,
            limit=settings.REPORTS_PER_CLIENT_10_MINUTES,
            window_seconds=TEN_MINUTES,
        )
        and ratelimit.allow(
            "report-client-day", client, limit=settings.REPORTS_PER_CLIENT_DAY, window_seconds=DAY
        )
    ):
        message = gettext("Too many reports from this connection; please try again later.")
        raise Refusal(429, "too_many_reports", message, "client_limit", retry=600)
    if reports_kept_since(timezone.now() - timedelta(seconds=HOUR)) >= settings.REPORTS_PER_HOUR:
        message = gettext("Too many reports right now; please try again later.")
        raise Refusal(429, "too_many_reports", message, "site_limit", retry=HOUR)


def _paused(system: TrailSystem) -> Refusal:
    contact = _contact(system)
    words = {"name": system.name, "contact": contact}
    message = (
        gettext(
            "%(name)s has received all the reports it can take today. Please tell the crew "
            "directly: %(contact)s."
        )
        if contact
        else gettext(
            "%(name)s has received all the reports it can take today. Please tell the crew "
            "directly."
        )
    ) % words
    return Refusal(429, "reports_paused", message, "system_paused", retry=seconds_to_tomorrow())


def _photo_too_large() -> Refusal:
    message = gettext("The photo is too large (over 8 MB); choose a smaller one.")
    return Refusal(413, "photo_too_large", message, "too_large")


def _file(request: HttpRequest, system: TrailSystem):
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    if length > BODY_MAX:
        raise _photo_too_large()
    if request.POST.get(HONEYPOT):
        raise Refusal(400, "refused", gettext("This report could not be accepted."), "honeypot")
    if not system.reports_per_day:
        message = gettext("%(name)s does not take reports on this map.") % {"name": system.name}
        raise Refusal(403, "reports_off", message, "system_paused")
    _check_bounds(request)
    upload = request.FILES.get("photo")
    if upload is not None and upload.size > PHOTO_BYTES_MAX:
        raise _photo_too_large()
    try:
        return file_report(
            system=system,
            photo=upload.read() if upload is not None else None,
            **{name: request.POST.get(name, "") for name in FIELDS},
        )
    except Invalid as error:
        raise Refusal(400, error.code, str(error), "invalid") from None
    except PhotoRefused as error:
        status = 413 if error.code == "photo_too_large" else 400
        raise Refusal(status, error.code, str(error), "photo") from None
    except ReportsPaused:
        raise _paused(system) from None


def _refused(request: HttpRequest, system: TrailSystem, refusal: Refusal) -> HttpResponse:
    reports_refused.labels(refusal.reason).inc()
    if _wants_json(request):
        body = {"error": {"code": refusal.code, "message": refusal.message}}
        if refusal.code == "reports_paused":
            body["contact"] = {"phoneNumber": system.phone_number, "website": system.website}
        response = JsonResponse(body, status=refusal.status)
    else:
        context = _form_context(request, system) | {"error": refusal.message}
        response = render(request, "public/report.html", context, status=refusal.status)
    if refusal.retry:
        response["Retry-After"] = str(refusal.retry)
    return response


@csrf_exempt
@require_http_methods(["GET", "HEAD", "POST"])
def report_view(request: HttpRequest, system_id: str) -> HttpResponse:
    """GET: the form as a page of its own (without script); POST: file the report. In the
    system's language, its answers included."""
    system = public_system(system_id)
    if system is None:
        return not_found(request)
    with translation.override(system.language):
        return _report(request, system)


def _report(request: HttpRequest, system: TrailSystem) -> HttpResponse:
    if request.method != "POST":
        return render(request, "public/report.html", _form_context(request, system))
    try:
        filed = _file(request, system)
    except Refusal as refusal:
        return _refused(request, system, refusal)
    reports_received.inc()
    group = filed.group
    message = (
        ngettext(
            "Thank you: others reported this too (%(count)d report); the crew of %(name)s has it.",
            "Thank you: others reported this too (%(count)d reports); the crew of %(name)s has it.",
            group.count,
        )
        % {"name": system.name, "count": group.count}
        if group.pk != filed.report.pk
        else gettext("Thank you: the crew of %(name)s has your report.") % {"name": system.name}
    )
    if _wants_json(request):
        report = filed.report
        body = {
            "ok": True,
            "id": report.pk,
            "count": group.count,
            "trailId": report.trail_id,
            "trailName": report.trail.name if report.trail else None,
            "trailDistanceKm": report.trail_distance_km,
            "message": message,
        }
        return JsonResponse(body, status=201)
    context = {
        "system": system,
        "language": system.language,
        "received": message,
        "map_url": reverse("public-map", args=[system.pk]),
    }
    return render(request, "public/report.html", context, status=201)
