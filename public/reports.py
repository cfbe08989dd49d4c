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
from django.utils import timezone
from django.utils.text import capfirst
from django.utils.translation import gettext, ngettext
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from core import ratelimit
from core.clients import counted_client
from core.errors import DomainError, Forbidden, Invalid, TooLarge, TooMany, envelope, http_status
from public.pages import of_public_system
from public.report_texts import categories
from reports.metrics import reports_received, reports_refused
from reports.photos import PHOTO_BYTES_MAX, PhotoRefused
from reports.selectors import reports_kept_since
from reports.services import ReportsPaused, file_report
from trails.models import TrailSystem

# The form's fields and a photo at its limit, with room for the multipart framing.
BODY_MAX = PHOTO_BYTES_MAX + 256 * 1024
HONEYPOT = "website"  # hidden from people; a bot fills it
FIELDS = ("category", "description", "lat", "lng", "email")
TEN_MINUTES, DAY, HOUR = 600, 86_400, 3600


def _wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


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
        reports_refused.labels("client_limit").inc()
        message = gettext("Too many reports from this connection; please try again later.")
        raise TooMany("too_many_reports", message, retry_after=TEN_MINUTES)
    if reports_kept_since(timezone.now() - timedelta(seconds=HOUR)) >= settings.REPORTS_PER_HOUR:
        reports_refused.labels("site_limit").inc()
        message = gettext("Too many reports right now; please try again later.")
        raise TooMany("too_many_reports", message, retry_after=HOUR)


def _photo_too_large() -> TooLarge:
    reports_refused.labels("too_large").inc()
    message = gettext("The photo is too large (over 8 MB); choose a smaller one.")
    return TooLarge("photo_too_large", message)


def _file(request: HttpRequest, system: TrailSystem):
    """The report filed, or the refusal (a DomainError), counted by its reason."""
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    if length > BODY_MAX:
        raise _photo_too_large()
    if request.POST.get(HONEYPOT):
        reports_refused.labels("honeypot").inc()
        raise Invalid("refused", gettext("This report could not be accepted."))
    if not system.reports_per_day:
        reports_refused.labels("system_paused").inc()
        message = gettext("%(name)s does not take reports on this map.") % {"name": system.name}
        raise Forbidden("reports_off", message)
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
    except PhotoRefused:
        reports_refused.labels("photo").inc()
        raise
    except ReportsPaused:
        reports_refused.labels("system_paused").inc()
        raise
    except Invalid:
        reports_refused.labels("invalid").inc()
        raise


def _refused(request: HttpRequest, system: TrailSystem, refusal: DomainError) -> HttpResponse:
    """The refusal's message alone (the form shows it above the fields, without the field's
    name), in the system's language; as JSON, in the error envelope."""
    message = capfirst(refusal.message)
    if _wants_json(request):
        body = envelope(refusal.code, message)
        if isinstance(refusal, ReportsPaused):
            body["contact"] = {"phoneNumber": system.phone_number, "website": system.website}
        response = JsonResponse(body, status=http_status(refusal))
    else:
        context = _form_context(request, system) | {"error": message}
        response = render(request, "public/report.html", context, status=http_status(refusal))
    if isinstance(refusal, TooMany) and refusal.retry_after:
        response["Retry-After"] = str(refusal.retry_after)
    return response


@csrf_exempt
@require_http_methods(["GET", "HEAD", "POST"])
@of_public_system
def report_view(request: HttpRequest, system: TrailSystem) -> HttpResponse:
    """GET: the form as a page of its own (without script); POST: file the report. In the
    system's language, its answers included."""
    if request.method != "POST":
        return render(request, "public/report.html", _form_context(request, system))
    try:
        filed = _file(request, system)
    except DomainError as refusal:
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
