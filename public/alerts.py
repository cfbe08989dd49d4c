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
from django.views.decorators.http import require_GET, require_http_methods

from alerts import vapid
from alerts.selectors import follower_document
from alerts.services import change_follower, follow, follower_of_token, unfollow
from core import ratelimit
from core.clients import counted_client
from core.errors import DomainError, Invalid, TooLarge, envelope, refusal_response
from public.pages import of_public_system
from trails.models import TrailSystem

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
        names = dict(system.trails.values_list("pk", "name"))
        rules = [
            {**rule, "trailName": names.get(rule["trailId"], gettext("All trails"))}
            for rule in document["rules"]
        ]
        context = {
            "system": system,
            "language": system.language,
            "document": document,
            "rules": rules,
        }
        return render(request, "public/alerts_manage.html", context)


def map_config(system) -> dict:
    """What alerts.js needs on the map: the addresses, and its words in the system's language."""
    return {
        "systemId": system.pk,
        "followUrl": reverse("alerts-follow", args=[system.pk]),
        "keyUrl": reverse("alerts-vapid-key"),
        "serviceWorkerUrl": reverse("service-worker"),
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
            "opens": gettext("opens"),
            "closes": gettext("closes"),
            "caution": gettext("caution"),
            "groomed": gettext("groomed"),
            "notices": gettext("notices"),
        },
    }
