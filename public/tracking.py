"""/track/osmand and /track/owntracks: positions from the groomers' tracker apps.

Anonymous writes (the tracker's secret is the credential), so each is bounded: the body's
size before anything is read; then the secret is checked first, so a known tracker is bounded
by its own rate whatever address it posts from (a fleet behind one NAT), and only requests
with a missing, unknown or revoked secret are bounded per client address
(docs/operators/security.md). A good request is answered 200 with an empty body; an unknown or
revoked secret 403; a malformed request 400 with a one-line reason; over a bound 413 or 429.
A tracker's positions reach only its own trail system."""

import base64
import binascii
from collections.abc import Callable

import orjson
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST

from core import ratelimit
from core.clients import counted_client
from core.outages import RETRY_AFTER_SECONDS
from grooming.models import Tracker
from grooming.protocols import MalformedPosition, osmand_parameters, owntracks_json, traccar_json
from grooming.sessions import Position, receive_positions
from grooming.trackers import tracker_for_secret

MAX_BODY_BYTES = 64 * 1024
WINDOW_SECONDS = 60
# A phone sends a position a second at most; the backlog after a dead zone comes faster.
REQUESTS_PER_TRACKER = 600
# Requests without a known tracker's secret from one client address (a misconfigured app
# sending once a second fits).
UNKNOWN_PER_ADDRESS = 120
JSON_TYPES = ("application/json", "text/json")
MAX_SECRETS_TRIED = 3  # Traccar Client repeats `id`: the URL's and its own device identifier


def _answer(status: int, reason: str = "") -> HttpResponse:
    response = HttpResponse(reason + "\n" if reason else b"", status=status)
    response["Content-Type"] = "text/plain; charset=utf-8"
    response["Cache-Control"] = "no-store"
    return response


def _too_many() -> HttpResponse:
    response = _answer(429, "Too many requests; try again in a minute.")
    response["Retry-After"] = str(WINDOW_SECONDS)
    return response


def too_large() -> HttpResponse:
    return _answer(413, f"The body is over {MAX_BODY_BYTES // 1024} KB.")


def failed() -> HttpResponse:
    """A request that failed on our side (logged): the tracker sends its position again."""
    return _answer(500, "The position could not be stored; try again.")


def unavailable() -> HttpResponse:
    """PostgreSQL or Redis cannot be reached (core.outages): nothing was stored, and the
    tracker app sends the position again later."""
    response = _answer(503, "The service is briefly unavailable; try again.")
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def _declared_too_large(request: HttpRequest) -> HttpResponse | None:
    """A refusal when the declared body is over its bound, before it is read."""
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    return too_large() if length > MAX_BODY_BYTES else None


def _refused(request: HttpRequest, refusal: HttpResponse) -> HttpResponse:
    """A request without a known tracker's secret, counted per client address: past the
    bound, 429 instead of the refusal."""
    if not ratelimit.allow(
        "track-address",
        counted_client(request),
        limit=UNKNOWN_PER_ADDRESS,
        window_seconds=WINDOW_SECONDS,
    ):
        return _too_many()
    return refusal


def _body(request: HttpRequest):
    try:
        body = request.body
    except Exception:  # over Django's own size limit, or a broken stream
        raise MalformedPosition("The body cannot be read.") from None
    if len(body) > MAX_BODY_BYTES:
        raise MalformedPosition(f"The body is over {MAX_BODY_BYTES // 1024} KB.")
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError:
        raise MalformedPosition("The body is not JSON.") from None


def _tracker(candidates: list[str]) -> Tracker | None:
    for secret in [secret for secret in candidates if secret][:MAX_SECRETS_TRIED]:
        if tracker := tracker_for_secret(secret):
            return tracker
    return None


def _receive(
    request: HttpRequest, candidates: list[str], read: Callable[[], list[Position]]
) -> HttpResponse:
    """Check the secret (400 missing, 403 unknown or revoked), then the tracker's rate, then
    read the positions (400 malformed) and keep them."""
    if not any(candidates):
        return _refused(request, _answer(400, "The tracker's secret is missing."))
    tracker = _tracker(candidates)
    if tracker is None:
        return _refused(request, _answer(403, "Unknown or revoked tracker."))
    if not ratelimit.allow(
        "track-tracker", tracker.pk, limit=REQUESTS_PER_TRACKER, window_seconds=WINDOW_SECONDS
    ):
        return _too_many()
    try:
        positions = read()
    except MalformedPosition as error:
        return _answer(400, str(error))
    receive_positions(tracker=tracker, positions=positions)
    return _answer(200)


@csrf_exempt
@require_http_methods(["GET", "POST"])
def osmand_view(request: HttpRequest) -> HttpResponse:
    """OsmAnd protocol: query or form parameters, or Traccar Client 9's JSON."""
    if refusal := _declared_too_large(request):
        return refusal
    now = timezone.now()
    candidates = request.GET.getlist("id")
    if request.method == "POST" and request.content_type in JSON_TYPES:
        try:
            document = _body(request)
        except MalformedPosition as error:
            return _refused(request, _answer(400, str(error)))
        device_id = document.get("device_id") if isinstance(document, dict) else None
        candidates.append(device_id if isinstance(device_id, str) else "")
        return _receive(request, candidates, lambda: traccar_json(document, now))
    parameters = request.GET.dict()
    if request.method == "POST":
        parameters |= request.POST.dict()
        candidates += request.POST.getlist("id")
    return _receive(request, candidates, lambda: [osmand_parameters(parameters, now)])


def _basic_password(request: HttpRequest) -> str:
    scheme, _, credentials = request.META.get("HTTP_AUTHORIZATION", "").partition(" ")
    if scheme.lower() != "basic":
        return ""
    try:
        decoded = base64.b64decode(credentials, validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        return ""
    return decoded.partition(":")[2]


@csrf_exempt
@require_POST
def owntracks_view(request: HttpRequest) -> HttpResponse:
    """OwnTracks' HTTP mode: the secret is the HTTP Basic password (any user name)."""
    if refusal := _declared_too_large(request):
        return refusal
    secret = _basic_password(request)
    if not secret:
        response = _answer(401, "Send the tracker's secret as the HTTP Basic password.")
        response["WWW-Authenticate"] = 'Basic realm="trackers"'
        return _refused(request, response)
    now = timezone.now()
    return _receive(request, [secret], lambda: owntracks_json(_body(request), now))
