"""The recorder: a phone page that records a grooming pass with the browser's geolocation, for
groomers without a tracker app ("Start grooming" on the board).

The page keeps each position in the browser (localStorage) until the server has taken it, and
sends them in batches (Traccar Client's JSON shape, read by the same parser as /track/osmand),
so nothing is lost in a dead zone. The positions go into the account's own recorder tracker
and make a grooming session with the same rules as a tracker app's; "Stop" ends it."""

import orjson
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, JsonResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from core.errors import DomainError, Invalid, TooLarge, refusal_response
from grooming import selectors, trackers
from grooming.protocols import MAX_BATCH, traccar_json
from grooming.services import DEFAULT_CONDITION
from grooming.sessions import end_running_session, receive_positions
from updates.enums import GROOMING_CONDITIONS
from updates.types import SURFACE_CONDITION_CATALOG
from webapp import roles
from webapp.actors import web_actor
from webapp.system_pages import system_or_404

MAX_BODY_BYTES = 64 * 1024


def _state(tracker_id: str, **extra) -> JsonResponse:
    grooming_now, trails = selectors.latest_session_trails(tracker_id)
    return JsonResponse({"groomingNow": grooming_now, "trails": trails, **extra})


def status_words() -> dict[str, str | dict[str, str]]:
    """The status line's words (recorder.js `statusText`): what the recorder is doing now, with
    the positions counted; a count as its words for one and for several, which the script picks
    by `Intl.PluralRules`."""
    return {
        "positions": {
            "one": ngettext("{count} position", "{count} positions", 1),
            "other": ngettext("{count} position", "{count} positions", 2),
        },
        "waiting_fix": gettext("Recording: waiting for the first GPS position."),
        "recording": gettext("Recording: {positions}."),
        "recording_sent": gettext("Recording: {positions}, all sent."),
        "recording_waiting": gettext("Recording: {positions}, {waiting} waiting for a connection."),
        "stopping": gettext("Stopped: sending the last positions…"),
        "stopping_waiting": gettext(
            "Stopped: {positions} waiting for a connection, sent when it returns."
        ),
        "stopped": gettext("Grooming recorded."),
    }


def recorder(model_admin, request: HttpRequest, system_id: str):
    system = system_or_404(request, system_id, roles.MEMBER)
    context = {
        **model_admin.admin_site.each_context(request),
        "title": _("Record grooming"),
        "opts": model_admin.opts,
        "system": system,
        "conditions": [
            (value, SURFACE_CONDITION_CATALOG[value].label) for value in GROOMING_CONDITIONS
        ],
        "recorder": {
            "positionsUrl": reverse("admin:trails_trailsystem_record_positions", args=[system.pk]),
            "stopUrl": reverse("admin:trails_trailsystem_record_stop", args=[system.pk]),
            "storageKey": f"recorder:{system.pk}:{request.user.pk}",
            "batch": MAX_BATCH,
            "condition": DEFAULT_CONDITION,
            "language": request.LANGUAGE_CODE,
            "words": status_words(),
        },
    }
    return TemplateResponse(request, "webapp/recorder.html", context)


def positions(model_admin, request: HttpRequest, system_id: str) -> HttpResponse:
    """A batch of the page's positions (`?condition=` the grooming condition the pass posts);
    answers what the session has marked so far."""
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    system = system_or_404(request, system_id, roles.MEMBER)
    try:
        if len(request.body) > MAX_BODY_BYTES:
            raise TooLarge("too_large", "The batch is too large.")
        try:
            body = orjson.loads(request.body)
        except orjson.JSONDecodeError:
            raise Invalid("invalid_json", "Not JSON.") from None
        batch = traccar_json(body, timezone.now())
        tracker = trackers.recorder_tracker(
            system=system, actor=web_actor(request), condition=request.GET.get("condition")
        )
    except DomainError as error:
        return refusal_response(error)
    received = receive_positions(tracker=tracker, positions=batch)
    return _state(tracker.pk, stored=received.stored, dropped=received.dropped)


def stop(model_admin, request: HttpRequest, system_id: str) -> HttpResponse:
    """End the recorder's session: its pass stands as an upload's would."""
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    system = system_or_404(request, system_id, roles.MEMBER)
    tracker = trackers.recorder_tracker(system=system, actor=web_actor(request))
    end_running_session(tracker=tracker)
    return _state(tracker.pk)
