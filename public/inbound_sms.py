"""The inbound SMS webhook: STOP replies unsubscribe and end alerts by text (the link's page
is public.views)."""

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseForbidden, HttpResponseNotFound
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST
from twilio.request_validator import RequestValidator

from alerts.services import unfollow_phone
from core.ids import CONTROL_CHARACTER
from updates.subscribers import unsubscribe_phone

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
@require_POST
def inbound_sms_view(request: HttpRequest) -> HttpResponse:
    """Twilio's incoming-message webhook. STOP and its equivalents unsubscribe the sender and
    end its alerts by text; Twilio itself answers the STOP. Only with the Twilio backend,
    and only posts signed with its auth token (required by the settings); any other backend
    has no such route."""
    if settings.SMS_BACKEND != settings.TWILIO_SMS_BACKEND:
        return HttpResponseNotFound()
    url = f"{settings.PUBLIC_BASE_URL}{request.get_full_path()}"
    signature = request.headers.get("X-Twilio-Signature", "")
    validator = RequestValidator(settings.TWILIO_AUTH_TOKEN)
    if not settings.TWILIO_AUTH_TOKEN or not validator.validate(
        url, request.POST.dict(), signature
    ):
        return HttpResponseForbidden("invalid signature")
    sender = request.POST.get("From", "")
    if is_stop_message(request.POST.dict()) and not CONTROL_CHARACTER.search(sender):
        unsubscribe_phone(phone=sender)
        unfollow_phone(phone=sender)
    return HttpResponse("<Response/>", content_type="text/xml")
