"""The public pages: the index, the map, the embeds and subscribing from the map.

The map pages carry no inline script or style: the script reads its settings from a JSON
script element, so a strict Content-Security-Policy holds. The embeds may be framed by any
site; every other page keeps the site-wide X-Frame-Options.
"""

from urllib.parse import urlsplit

from csp.decorators import csp_replace, csp_update
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import connection
from django.http import (
    HttpRequest,
    HttpResponse,
    StreamingHttpResponse,
)
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import get_language, gettext
from django.views.decorators.cache import cache_control, never_cache
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from closures.documents import closures_version
from closures.selectors import closed_stretches
from core import ratelimit
from core.clients import counted_client
from core.dates import iso_ms
from public import alerts, live
from public.pages import message_context, not_found, of_public_system
from public.selectors import index_rows, public_system, published_closures, published_trails
from public.texts import (
    list_texts,
    map_title,
    open_of_total,
    script_texts,
    status_label,
    unconfirmed_text,
)
from publishing.storage import absolute_public_url, public_url
from trails.models import TrailSystem
from trails.selectors import unconfirmed_statuses
from trails.timezones import zone_name
from updates.confirmations import (
    Confirmation,
    Outcome,
    clean_sign_up,
    confirm_email,
    confirm_phone,
    refusal_words,
    request_subscription,
)
from updates.enums import GROOMING_CONDITIONS
from updates.selectors import email_sign_up, subscriber_by_unsubscribe_token
from updates.sms_budget import seconds_to_tomorrow, sms_sign_up_state
from updates.subscribers import unsubscribe

# Sign-ups: per client address and per contact (e-mail or phone), per hour.
SUBSCRIBE_LIMIT_PER_ADDRESS = 10
SUBSCRIBE_LIMIT_PER_CONTACT = 3
CODE_LIMIT_PER_ADDRESS = 20
WINDOW_SECONDS = 3600


def frameable(view):
    """Any site may frame this page: no X-Frame-Options, CSP frame-ancestors *."""
    return xframe_options_exempt(csp_replace({"frame-ancestors": ["*"]})(view))


def _origin(url: str) -> str | None:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else None


def _allow_map_sources(response: HttpResponse) -> HttpResponse:
    """The map script reads the published files, which may live on object storage, and may
    draw tiles from MAP_TILE_URL's server: the policy names those origins for this page."""
    connect = {
        _origin(settings.PUBLIC_BASE_URL),
        _origin(public_url("published/maps/x")),
        _origin(settings.STREAM_BASE_URL),
    }
    tiles = {_origin(settings.MAP_TILE_URL)}
    config = {
        "connect-src": sorted(o for o in connect if o),
        "img-src": sorted(o for o in tiles if o),
    }
    return csp_update({name: value for name, value in config.items() if value})(lambda: response)()


def page_not_found(request: HttpRequest) -> HttpResponse:
    """Any other address of the site (handler404), in the visitor's language: never Django's
    own page."""
    context = message_context(
        gettext("Page not found"), gettext("There is no page at this address.")
    )
    return render(request, "public/message.html", context, status=404)


def server_error() -> HttpResponse:
    """handler500's page, rendered without the request: the database may be what failed."""
    context = message_context(
        gettext("Something went wrong"),
        gettext(
            "This page could not be shown because of an error on our side. "
            "Please try again in a moment."
        ),
    )
    return HttpResponse(render_to_string("public/message.html", context), status=500)


def _events_url(system: TrailSystem) -> str:
    return settings.STREAM_BASE_URL + reverse("public-events", args=[system.pk])


def _map_config(system: TrailSystem) -> dict:
    """What the map script needs, passed as JSON (never as an inline script). The current
    file's address and time let the page fetch it at once, beside the system document."""
    return {
        "systemId": system.pk,
        "systemUrl": f"/legacy/ts/{system.pk}",
        "fileUrl": absolute_public_url(system.geo_json_path),
        "compiledOn": iso_ms(system.compiled_on),
        "eventsUrl": _events_url(system),
        "confirmationsUrl": reverse("feed-confirmations", args=[system.pk]),
        "closuresUrl": reverse("feed-closures", args=[system.pk]),
        "timeZone": zone_name(system),
        "lengthMeasurement": system.length_measurement,
        "mapUrl": reverse("public-map", args=[system.pk]),
        "pollSeconds": settings.MAP_POLL_SECONDS,
        "tileUrl": settings.MAP_TILE_URL,
        "tileAttribution": settings.MAP_TILE_ATTRIBUTION,
        "language": system.language,
        "texts": script_texts(),
        # A trail's conditions that say it was groomed give way, in the Grooming view, to
        # its last grooming (the same truth, said once).
        "groomingConditions": list(GROOMING_CONDITIONS),
        # The first view, before the file comes: the system's place (its own, or its
        # trails' centre); null for a system without either.
        "centre": [system.lat, system.lng]
        if system.lat is not None and system.lng is not None
        else None,
    }


def _map_page(request: HttpRequest, system: TrailSystem, *, embed: bool) -> HttpResponse:
    context = {
        "system": system,
        "embed": embed,
        "title": map_title(system.name),
        "config": _map_config(system),
        "list_url": reverse("public-embed-list", args=[system.pk]),
        "sms": sms_sign_up_state(system) if not embed else "",
        "alerts_config": alerts.map_config(system),
    }
    return _allow_map_sources(render(request, "public/map.html", context))


@require_GET
def index_view(request: HttpRequest) -> HttpResponse:
    """Every public system with its count of open trails, in the visitor's language."""
    systems = [{**row, "summary": open_of_total(row["open"], row["total"])} for row in index_rows()]
    return render(request, "public/index.html", {"systems": systems, "language": get_language()})


@require_GET
@of_public_system
def map_view(request: HttpRequest, system: TrailSystem) -> HttpResponse:
    return _map_page(request, system, embed=False)


@require_GET
@frameable
@of_public_system
def embed_view(request: HttpRequest, system: TrailSystem) -> HttpResponse:
    return _map_page(request, system, embed=True)


def every_activity_closed(trail: dict) -> bool:
    """A trail Open or Caution whose activities are all Closed (the API's rule allows it): the
    list says so rather than show it plainly open (map.js `everyActivityClosed`)."""
    activities = trail.get("activities") or []
    return (
        trail["status"] != "Closed"
        and bool(activities)
        and all(activity["status"] == "Closed" for activity in activities)
    )


def closure_label(whole: bool | None) -> str:
    """ "Partly closed" for a trail with a closed stretch; "Closed" when a closure is of the
    whole trail; nothing without one (closures.js says the same on the map)."""
    if whole is None:
        return ""
    return status_label("Closed") if whole else gettext("Partly closed")


@require_GET
@frameable
@cache_control(public=True, max_age=60)
@of_public_system
def embed_list_view(request: HttpRequest, system: TrailSystem) -> HttpResponse:
    """The status table; its script follows the live stream and, on a change, swaps in the
    table of this same page read again (one renderer: the template)."""
    now = timezone.now()
    unconfirmed = unconfirmed_statuses(system, now=now)
    closed = closed_stretches(system.pk, now)
    trails = [
        {
            "id": trail["trailId"],
            "name": trail["name"],
            "status": trail["status"],
            "status_label": status_label(trail["status"]),
            "is_lift": trail.get("type") == "Lift",
            "activities": ", ".join(a["label"] for a in trail.get("activities") or []),
            "every_activity_closed": every_activity_closed(trail),
            "closure": closure_label(closed.get(trail["trailId"])),
            "unconfirmed": (
                unconfirmed_text(unconfirmed[trail["trailId"]], now)
                if trail["trailId"] in unconfirmed
                else ""
            ),
        }
        for trail in published_trails(system)
    ]
    config = {
        "eventsUrl": _events_url(system),
        "pollSeconds": settings.MAP_POLL_SECONDS,
        "version": live.Publication.of(system).version,
        "compiledOn": iso_ms(system.compiled_on),
        "closuresVersion": closures_version(published_closures([system.pk])[system.pk]),
        "timeZone": zone_name(system),
        "language": system.language,
        "texts": list_texts(),
    }
    context = {"system": system, "trails": trails, "config": config}
    return _allow_map_sources(render(request, "public/embed_list.html", context))


def stream_refused(refusal: live.Refusal) -> HttpResponse:
    """A stream not opened: the page polls meanwhile and asks again after Retry-After."""
    response = HttpResponse(refusal.message, status=refusal.status)
    for header, value in refusal.headers():
        response[header] = value
    return response


def publication(system_id: str) -> live.Publication | None:
    """The public system's publication; None when it is not on the public map. The same
    selector as of_public_system's (public_system), not its decorator: the live stream asks
    only when the hub cannot vouch for the system without a query, from the WSGI view and from
    the ASGI process alike, and answers its own not-found."""
    system = public_system(system_id)
    # A stream's process keeps no database connection per stream: its one query is done.
    connection.close()
    return live.Publication.of(system) if system is not None else None


def last_event_id(request: HttpRequest) -> str:
    return request.headers.get("Last-Event-ID", "")[:100]


@require_GET
def events_view(request: HttpRequest, system_id: str) -> HttpResponse:
    """The system's live stream (Server-Sent Events, public/live.py) in a WSGI process: only
    where compiles run in it (the embedded default's runserver, a thread per connection);
    elsewhere a stream would hold a worker, and the page falls back to polling. The ASGI
    process answers with public/streams.py."""
    if not settings.CELERY_TASK_ALWAYS_EAGER:
        return stream_refused(live.NOT_HERE)
    client = counted_client(request)
    refusal = live.admissions.admit(client)
    if refusal is not None:
        return stream_refused(refusal)
    live.hub.start()
    current = live.hub.vouched(system_id) or publication(system_id)
    if current is None:
        live.admissions.release(client)
        return not_found(request)
    response = StreamingHttpResponse(
        live.frames(system_id, current, last_event_id(request), client),
        content_type="text/event-stream",
    )
    for header, value in live.STREAM_HEADERS:
        response[header] = value
    return response


# Subscribing


def _too_many(request: HttpRequest, system: TrailSystem) -> HttpResponse:
    with translation.override(system.language):
        context = {"system": system, "state": "too_many"}
        response = render(request, "public/subscribe.html", context, status=429)
    response["Retry-After"] = str(WINDOW_SECONDS)
    return response


@require_POST
@of_public_system
def subscribe_view(request: HttpRequest, system: TrailSystem) -> HttpResponse:
    """The map's form. Whatever the contact's state, the answer is the same page."""
    email, phone = request.POST.get("email", ""), request.POST.get("phone", "")
    context = {"system": system, "email": email, "phone": phone}
    try:
        email, phone = clean_sign_up(system=system, email=email, phone=phone)
    except ValidationError as error:
        context |= {
            "state": "invalid",
            "errors": refusal_words(error, system),
            "sms": sms_sign_up_state(system),
        }
        return render(request, "public/subscribe.html", context, status=400)
    address = counted_client(request)
    allowed = ratelimit.allow(
        "subscribe-address",
        address,
        limit=SUBSCRIBE_LIMIT_PER_ADDRESS,
        window_seconds=WINDOW_SECONDS,
    )
    for contact in (email, phone):
        if contact:
            allowed &= ratelimit.allow(
                "subscribe-contact",
                contact,
                limit=SUBSCRIBE_LIMIT_PER_CONTACT,
                window_seconds=WINDOW_SECONDS,
            )
    if not allowed:
        return _too_many(request, system)
    sign_up = request_subscription(system=system, email=email, phone=phone)
    if sign_up.pending is None:  # a number alone, and sign-up by text is paused for today
        context |= {"state": "sms_paused", "phone": "", "sms": "paused"}
        response = render(request, "public/subscribe.html", context, status=429)
        response["Retry-After"] = str(seconds_to_tomorrow())
        return response
    pending = sign_up.pending
    check_email = gettext(
        "If %(email)s can receive e-mail, a confirmation link is on its way. "
        "Open it within 24 hours."
    )
    check_phone = gettext(
        "If %(phone)s can receive text messages, a 6-digit code is on its way. "
        "Enter it here within 30 minutes."
    )
    paused = gettext(
        "Sign-up by text message is paused for today, so no code was sent to %(phone)s. "
        "Sign up by text again tomorrow."
    )
    context |= {
        "state": "sent",
        "pending": pending,
        "check_email": check_email % {"email": pending.email} if pending.email else "",
        "check_phone": check_phone % {"phone": pending.phone} if pending.phone else "",
        "sms_paused_no_code": paused % {"phone": phone} if sign_up.sms_paused else "",
    }
    return render(request, "public/subscribe.html", context)


def _confirmation_page(request: HttpRequest, confirmation, contact: str) -> HttpResponse:
    pending = confirmation.pending
    system = pending.trail_system if pending else None
    with translation.override(system.language if system else "en"):
        context = {"system": system, "pending": pending, "state": confirmation.outcome}
        if confirmation.outcome == Outcome.CONFIRMED:
            context["confirmed"] = gettext(
                "%(contact)s will get updates from %(name)s. "
                "Every message has a link to unsubscribe."
            ) % {"contact": contact, "name": system.name}
        status = 400 if confirmation.outcome == Outcome.WRONG_CODE else 200
        if confirmation.outcome == Outcome.EXPIRED:
            status = 410
        return render(request, "public/subscribe.html", context, status=status)


def link_page(view):
    """The page of a link in our messages: opening it shows one button, and only the button
    (a POST) acts, so a mail scanner or a link preview spends nothing. The token in the
    address is the credential: no CSRF cookie, so the button works in whatever browser
    opens the link (a cookie would add nothing against someone who has the token)."""
    return csrf_exempt(never_cache(require_http_methods(["GET", "HEAD", "POST"])(view)))


@link_page
def confirm_email_view(request: HttpRequest, token: str) -> HttpResponse:
    """/subscribe/confirm/<token>, the link of the confirmation e-mail."""
    if request.method == "POST":
        confirmation = confirm_email(token=token)
        contact = confirmation.pending.email if confirmation.pending else ""
        return _confirmation_page(request, confirmation, contact)
    pending = email_sign_up(token)
    if pending is None or not pending.email_link_open:
        return _confirmation_page(request, Confirmation(Outcome.EXPIRED, pending), "")
    system = pending.trail_system
    with translation.override(system.language):
        context = message_context(
            gettext("Confirm your subscription"),
            gettext("Press the button to get updates from %(name)s at %(email)s.")
            % {"name": system.name, "email": pending.email},
            system=system,
            button=gettext("Confirm my subscription"),
        )
        return render(request, "public/message.html", context)


ONE_CLICK = "One-Click"


@link_page
def unsubscribe_view(request: HttpRequest, token: str) -> HttpResponse:
    """/unsubscribe/<token>, the link of every message. A mail provider's one-click POST
    (RFC 8058: the body `List-Unsubscribe=One-Click`) unsubscribes and gets no page."""
    if request.method == "POST":
        subscriber = unsubscribe(token=token)
        if request.POST.get("List-Unsubscribe") == ONE_CLICK:
            return HttpResponse(status=200 if subscriber else 404)
    else:
        subscriber = subscriber_by_unsubscribe_token(token)
    if subscriber is None:
        context = message_context(
            gettext("Link not recognised"),
            gettext(
                "This unsubscribe link is not valid. Use the link in the latest message you "
                "got from us, or reply STOP to a text message."
            ),
        )
        return render(request, "public/message.html", context, status=404)
    system = subscriber.trail_system
    with translation.override(system.language):
        words = {"name": system.name, "address": subscriber.email or subscriber.phone}
        if subscriber.unsubscribed_on:
            context = message_context(
                gettext("You are unsubscribed"),
                gettext(
                    "We will not send %(address)s any more updates from %(name)s. "
                    "To get them again, subscribe from the map."
                )
                % words,
                system=system,
            )
        else:
            context = message_context(
                gettext("Unsubscribe?"),
                gettext("%(address)s gets updates from %(name)s. Press the button to stop them.")
                % words,
                system=system,
                button=gettext("Unsubscribe"),
            )
        return render(request, "public/message.html", context)


@require_POST
@of_public_system
def confirm_code_view(request: HttpRequest, system: TrailSystem) -> HttpResponse:
    if not ratelimit.allow(
        "subscribe-code",
        counted_client(request),
        limit=CODE_LIMIT_PER_ADDRESS,
        window_seconds=WINDOW_SECONDS,
    ):
        return _too_many(request, system)
    confirmation = confirm_phone(
        system=system, pending_id=request.POST.get("pending", ""), code=request.POST.get("code", "")
    )
    contact = confirmation.pending.phone if confirmation.pending else ""
    return _confirmation_page(request, confirmation, contact)
