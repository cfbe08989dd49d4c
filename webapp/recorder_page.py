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
from django.utils.translation import gettext_lazy as _

from grooming import selectors, trackers
from grooming.protocols import MAX_BATCH, MalformedPosition, traccar_json
from grooming.sessions import end_running_session, receive_positions
from webapp import roles
from webapp.actors import web_actor
from webapp.system_pages import system_or_404

MAX_BODY_BYTES = 64 * 1024


def _state(tracker_id: str, **extra) -> JsonResponse:
    grooming_now, trails = selectors.latest_session_trails(tracker_id)
    return JsonResponse({"groomingNow": grooming_now, "trails": trails, **extra})


def recorder(model_admin, request: HttpRequest, system_id: str):
    system = system_or_404(request, system_id, roles.MEMBER)
    context = {
        **model_admin.admin_site.each_context(request),
        "title": _("Record grooming"),
        "opts": model_admin.opts,
        "system": system,
        "recorder": {
            "positionsUrl": reverse("admin:trails_trailsystem_record_positions", args=[system.pk]),
            "stopUrl": reverse("admin:trails_trailsystem_record_stop", args=[system.pk]),
            "storageKey": f"recorder:{system.pk}:{request.user.pk}",
            "batch": MAX_BATCH,
        },
    }
    return TemplateResponse(request, "webapp/recorder.html", context)


def positions(model_admin, request: HttpRequest, system_id: str) -> HttpResponse:
    """A batch of the page's positions; answers what the session has marked so far."""
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    system = system_or_404(request, system_id, roles.MEMBER)
    if len(request.body) > MAX_BODY_BYTES:
        return JsonResponse({"error": "The batch is too large."}, status=413)
    try:
        batch = traccar_json(orjson.loads(request.body), timezone.now())
    except (orjson.JSONDecodeError, MalformedPosition) as error:
        return JsonResponse({"error": str(error) or "Not JSON."}, status=400)
    tracker = trackers.recorder_tracker(system=system, actor=web_actor(request))
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
