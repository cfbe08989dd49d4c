"""Public pages for subscribers: one-click unsubscribe and the inbound SMS webhook (STOP)."""

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseForbidden
from django.shortcuts import render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST
from twilio.request_validator import RequestValidator

from updates.subscribers import unsubscribe, unsubscribe_phone

# Twilio's standard opt-out words and their French equivalents, compared without case.
STOP_WORDS = frozenset(
    {
        "STOP",
        "STOPALL",
        "UNSUBSCRIBE",
        "CANCEL",
        "END",
        "QUIT",
        "REVOKE",
        "OPTOUT",
        "ARRET",
        "ARRÊT",
        "DESABONNER",
        "DÉSABONNER",
    }
)


def is_stop_message(fields: dict) -> bool:
    """STOP and its equivalents, or any keyword Twilio's Advanced Opt-Out classed as STOP."""
    body = fields.get("Body", "").strip().upper().rstrip(".!")
    return body in STOP_WORDS or fields.get("OptOutType", "").upper() == "STOP"


@csrf_exempt
@require_http_methods(["GET", "POST"])
def unsubscribe_view(request: HttpRequest, token: str) -> HttpResponse:
    """GET from the link in a message, POST from a mail client's one-click button
    (RFC 8058); both unsubscribe at once and may be repeated."""
    subscriber = unsubscribe(token=token)
    if subscriber is None:
        return render(request, "subscriptions/unknown.html", status=404)
    system = subscriber.trail_system
    return render(
        request,
        f"subscriptions/{system.language}/unsubscribed.html",
        {"system_name": system.name, "address": subscriber.email or subscriber.phone},
    )


@csrf_exempt
@require_POST
def inbound_sms_view(request: HttpRequest) -> HttpResponse:
    """Twilio's incoming-message webhook. STOP and its equivalents unsubscribe the sender;
    Twilio itself answers the STOP. With Twilio credentials set, unsigned posts are refused."""
    if settings.TWILIO_AUTH_TOKEN:
        url = f"{settings.PUBLIC_BASE_URL}{request.get_full_path()}"
        signature = request.headers.get("X-Twilio-Signature", "")
        validator = RequestValidator(settings.TWILIO_AUTH_TOKEN)
        if not validator.validate(url, request.POST.dict(), signature):
            return HttpResponseForbidden("invalid signature")
    if is_stop_message(request.POST.dict()):
        unsubscribe_phone(phone=request.POST.get("From", ""))
    return HttpResponse("<Response/>", content_type="text/xml")
