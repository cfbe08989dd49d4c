"""Riders' alerts over HTTP (alerts/): the VAPID public key, following a system's trails
(POST /alerts/<system id>, JSON), and the rider's own alerts page at the manage URL (GET,
PUT new rules, DELETE everything). Anonymous, so bounded per client and per system per
minute; counted before anything is read, so a flood stores nothing past the bounds."""

import orjson
from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from alerts import vapid
from alerts.changes import CM_PER_INCH
from alerts.confirmations import Outcome, confirm_code, confirm_email
from alerts.models import Follower
from alerts.selectors import followed_trail_names, follower_document, follower_of_link
from alerts.services import (
    change_follower,
    follow,
    follower_of_token,
    manage_token,
    unfollow,
)
from core import ratelimit
from core.clients import counted_client
from core.errors import DomainError, Invalid, TooLarge, envelope, refusal_response
from public.pages import of_public_system
from trails.models import TrailSystem
from updates.sms_budget import sms_sign_up_state

BODY_MAX = 64 * 1024
MINUTE = 60


def _error(status: int, code: str, message: str) -> JsonResponse:
    return JsonResponse(envelope(code, message), status=status)


def _refused(error: DomainError) -> JsonResponse:
    """With the field it is about also apart, for the map's script."""
    return refusal_response(error, field_apart=True)


def _json_body(request: HttpRequest) -> dict:
    if len(request.body) > BODY_MAX:
        raise TooLarge("too_large", "the request is larger than 64 KB.")
    try:
        body = orjson.loads(request.body)
    except orjson.JSONDecodeError:
        raise Invalid("invalid_json", "the body is not JSON.") from None
    if not isinstance(body, dict):
        raise Invalid("invalid_json", "the body must be a JSON object.")
    return body


@require_GET
def vapid_public_key_view(request: HttpRequest) -> JsonResponse:
    if not vapid.configured():
        return _error(503, "push_unavailable", "this service has no VAPID keys for Web Push.")
    return JsonResponse({"publicKey": vapid.public_key()})


def _within_bounds(request: HttpRequest, system_id: str) -> bool:
    return ratelimit.allow(
        "alerts-client",
        counted_client(request),
        limit=settings.ALERTS_SIGNUPS_PER_CLIENT_MINUTE,
        window_seconds=MINUTE,
    ) and ratelimit.allow(
        "alerts-system",
        system_id,
        limit=settings.ALERTS_SIGNUPS_PER_SYSTEM_MINUTE,
        window_seconds=MINUTE,
    )


def _no_such_system(request: HttpRequest) -> JsonResponse:
    return _error(404, "not_found", "no such trail system.")


@csrf_exempt
@require_http_methods(["POST"])
@of_public_system(missing=_no_such_system)
def follow_view(request: HttpRequest, system: TrailSystem) -> JsonResponse:
    """201 {"manageUrl"}; 400 naming the field, 404, 429 past the bounds."""
    if not _within_bounds(request, system.pk):
        response = _error(429, "too_many_requests", "too many sign-ups; try again in a minute.")
        response["Retry-After"] = str(MINUTE)
        return response
    try:
        with translation.override(system.language):  # an address refused in the map's words
            following = follow(system=system, fields=_json_body(request))
    except DomainError as error:
        return _refused(error)
    return JsonResponse({"manageUrl": following.manage_url}, status=201)


@csrf_exempt
@require_http_methods(["GET", "HEAD", "PUT", "DELETE", "POST"])
def manage_view(request: HttpRequest, token: str) -> HttpResponse:
    """The rider's alerts: GET (JSON, or the page), PUT new rules (JSON), DELETE all; POST is
    the page's "remove all" without script."""
    follower = follower_of_token(token)
    wants_json = "application/json" in request.headers.get("Accept", "")
    if follower is None:
        if wants_json or request.method not in ("GET", "HEAD"):
            return _error(404, "not_found", "these alerts no longer exist.")
        context = {"removed": True, "language": request.LANGUAGE_CODE}
        return render(request, "public/alerts_manage.html", context, status=404)
    system = follower.trail_system
    with translation.override(system.language):
        if request.method in ("DELETE", "POST"):
            unfollow(follower=follower)
            if request.method == "DELETE":
                return HttpResponse(status=204)
            context = {"removed": True, "system": system, "language": system.language}
            return render(request, "public/alerts_manage.html", context)
        if request.method == "PUT":
            try:
                follower = change_follower(follower=follower, fields=_json_body(request))
            except DomainError as error:
                return _refused(error)
        document = follower_document(follower)
        if wants_json or request.method == "PUT":
            return JsonResponse(document)
        return _manage_page(request, follower, document)


def _manage_page(
    request: HttpRequest, follower: Follower, document: dict, said: str = "", status: int = 200
) -> HttpResponse:
    """The rider's alerts page, in the system's language; a follower by text waiting for
    confirmation gets the form for the code."""
    system = follower.trail_system
    with translation.override(system.language):
        names = {None: gettext("All trails"), **followed_trail_names(follower)}
        words = kind_words()
        rules = [
            {
                **rule,
                "trailName": names.get(rule["trailId"], ""),
                "kinds": [
                    _snow_words(words[kind], rule["snowCm"], system)
                    if kind == "snow"
                    else words.get(kind, kind)
                    for kind in rule["on"]
                ],
            }
            for rule in document["rules"]
        ]
        context = {
            "system": system,
            "language": system.language,
            "document": document,
            "rules": rules,
            "said": said,
            "code_url": reverse("alerts-confirm-code", args=[manage_token(follower.pk)]),
        }
        return render(request, "public/alerts_manage.html", context, status=status)


@csrf_exempt
@require_POST
def confirm_code_view(request: HttpRequest, token: str) -> HttpResponse:
    """The code sent by SMS, from the alerts page's form (`code`) or as JSON ({"code"}):
    the follower's document, or 400 `wrong_code` / `expired`."""
    follower = follower_of_token(token)
    if follower is None:
        return _error(404, "not_found", "these alerts no longer exist.")
    wants_json = request.content_type == "application/json"
    try:
        code = _json_body(request).get("code") if wants_json else request.POST.get("code")
        if not isinstance(code, str) or not code.strip():
            raise Invalid(
                "missing_field", "the code sent by text message is required.", field="code"
            )
    except DomainError as error:
        return _refused(error)
    outcome = confirm_code(follower=follower, code=code[:20])
    follower.refresh_from_db()
    document = follower_document(follower)
    if outcome == Outcome.CONFIRMED:
        if wants_json:
            return JsonResponse(document)
        with translation.override(follower.trail_system.language):
            said = gettext("Confirmed: your alerts by text message have started.")
        return _manage_page(request, follower, document, said)
    with translation.override(follower.trail_system.language):
        message = (
            gettext("That code is not right; check the text message and try again.")
            if outcome == Outcome.WRONG_CODE
            else gettext("That code has expired: follow again from the map for a new one.")
        )
    if wants_json:
        return _refused(Invalid(outcome.value, message, field="code"))
    return _manage_page(request, follower, document, message, status=400)


@csrf_exempt
@require_http_methods(["GET", "HEAD", "POST"])
def confirm_email_view(request: HttpRequest, key: str) -> HttpResponse:
    """/alerts/confirm/<key>, the link of the confirmation e-mail: a page with a button (a
    mail scanner opening the link confirms nothing), which starts the alerts."""
    follower = confirm_email(key=key) if request.method == "POST" else follower_of_link(key)
    if follower is None:
        context = {
            "heading": gettext("Link not recognised"),
            "message": gettext(
                "This link has expired or was used already. Follow again from the map for a "
                "new one."
            ),
        }
        return render(request, "public/message.html", context, status=404)
    system = follower.trail_system
    with translation.override(system.language):
        if request.method == "POST":
            return _manage_page(
                request,
                follower,
                follower_document(follower),
                gettext("Confirmed: your alerts by e-mail have started."),
            )
        context = {
            "system": system,
            "language": system.language,
            "heading": gettext("Confirm your alerts"),
            "message": gettext("Press the button to get alerts from %(name)s at %(email)s.")
            % {"name": system.name, "email": follower.address},
            "button": gettext("Start my alerts"),
        }
        return render(request, "public/message.html", context)


def snow_unit(system: TrailSystem) -> str:
    """The unit riders read and type snow depths in: the system's."""
    return "in" if system.depth_measurement == "inches" else "cm"


def _snow_words(snow: str, snow_cm: float | None, system: TrailSystem) -> str:
    """A snow rule with its depth in the system's unit, as the map's panel sets it (whole
    units): 'snow (new snow in 24 h, at least 4 in)'."""
    if snow_cm is None:
        return snow
    unit = snow_unit(system)
    depth = round(snow_cm / (CM_PER_INCH if unit == "in" else 1))
    return f"{snow} ({gettext('new snow in 24 h, at least')} {depth} {unit})"


def kind_words() -> dict[str, str]:
    """A rule's kinds of change in the active language, as the map's panel and the rider's
    alerts page name them."""
    return {
        "opens": gettext("opens"),
        "closes": gettext("closes"),
        "caution": gettext("caution"),
        "groomed": gettext("groomed"),
        "notices": gettext("notices"),
        "snow": gettext("snow"),
    }


def map_config(system) -> dict:
    """What alerts.js needs on the map: the addresses, whether text messages are offered
    today (`sms`: open, paused or off), and its words in the system's language."""
    return {
        "systemId": system.pk,
        "sms": sms_sign_up_state(system),
        "followUrl": reverse("alerts-follow", args=[system.pk]),
        "keyUrl": reverse("alerts-vapid-key"),
        "serviceWorkerUrl": reverse("service-worker"),
        "snowUnit": snow_unit(system),
        "texts": {
            "alerts": gettext("Alerts"),
            "follow": gettext("Follow"),
            "following_button": gettext("Following ✓"),
            "follow_system": gettext("Follow the whole system"),
            "whole_system": gettext("All trails"),
            "manage": gettext("Your alerts page"),
            "nothing_followed": gettext(
                "You follow nothing here yet: press Follow on a trail, or follow the whole system."
            ),
            "no_push": gettext(
                "This browser cannot show notifications from the map. On an iPhone or iPad, "
                "add the map to the home screen first (Share, then Add to Home Screen)."
            ),
            "permission_refused": gettext(
                "Notifications are blocked for this site; allow them in the browser's settings."
            ),
            "unavailable": gettext("Alerts are not available on this site right now."),
            "failed": gettext("That did not work; please try again."),
            "asking": gettext("Setting up alerts…"),
            "following": gettext("You will be told when this changes."),
            **kind_words(),
            "snow_at_least": gettext("new snow in 24 h, at least"),
            "snow_any": gettext("any"),
            "snow_invalid": gettext(
                "Give the new snow as a whole number, or leave it empty for any."
            ),
            "options": gettext("Quiet hours and limits"),
            "quiet_from": gettext("Quiet from"),
            "quiet_to": gettext("until"),
            "quiet_hint": gettext(
                "Alerts wait until the quiet hours end, except a closure or notice for "
                "danger. Leave both empty for none."
            ),
            "quiet_invalid": gettext(
                "Give both times of the quiet hours, different from each other, or neither."
            ),
            "once_per_day": gettext("At most one alert a day per rule"),
            "channel": gettext("How to tell you"),
            "channel_push": gettext("Notifications on this device"),
            "channel_email": gettext("E-mail"),
            "channel_sms": gettext("Text message"),
            "email_label": gettext("Your e-mail address"),
            "phone_label": gettext("Mobile phone (with country code, e.g. +1 406 555 0123)"),
            "sms_paused": gettext(
                "Sign-up by text message is paused for today. You can sign up by e-mail now, "
                "or by text again tomorrow."
            ),
            "send_email": gettext("E-mail me a link to confirm"),
            "send_sms": gettext("Text me a code"),
            "sending": gettext("Sending…"),
            "address_missing_email": gettext("Type your e-mail address."),
            "address_missing_sms": gettext("Type your mobile phone number."),
            "pick_first": gettext("Press Follow on a trail, or follow the whole system, first."),
            "added": gettext(
                "Added to your alerts. To start them, send them from the Alerts panel."
            ),
            "check_inbox": gettext(
                "Check your inbox to confirm: we sent a link to {address}. Your alerts start "
                "when you open it, within 24 hours."
            ),
            "code_sent": gettext(
                "We sent a 6-digit code to {address}. Type it here within 30 minutes to start "
                "these alerts."
            ),
            "code": gettext("Code"),
            "confirm": gettext("Confirm"),
            "code_missing": gettext("Type the 6-digit code from the text message."),
            "code_elsewhere": gettext("Or type it on your alerts page"),
            "confirmed_sms": gettext("Confirmed: your alerts by text message have started."),
            "confirmed_email": gettext("Confirmed: your alerts by e-mail have started."),
            "offline": gettext(
                "Not sent: this device is offline. What you typed is kept here; "
                "try again once you are connected."
            ),
            "too_many": gettext(
                "Not sent: too many sign-ups just now. What you typed is kept here; "
                "try again after {time}."
            ),
            "sms_paused_now": gettext(
                "Not sent: sign-up by text message is paused for today. Choose e-mail or "
                "notifications on this device, or try again tomorrow."
            ),
            "alerts_off": gettext("This trail system does not send alerts."),
        },
    }
