"""Trackers: a manager's writes (create, revoke) and the secret a tracker posts positions with.

Like API keys, only the SHA-256 digest of a secret is stored, with a short visible prefix to
tell trackers apart; the plaintext is shown once, in the creation's answer."""

import hashlib
import secrets
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef, QuerySet
from django.utils import timezone

from core.actors import Actor
from core.errors import Invalid, NotFound
from grooming.models import GroomingSession, Tracker
from grooming.services import DEFAULT_CONDITION
from grooming.sessions import end_running_session
from trails.models import TrailSystem
from updates.enums import GROOMING_CONDITIONS, SURFACE_CONDITIONS

SECRET_PREFIX = "trk_"
# 24 random bytes = 192 bits, URL-safe (it travels in a query string), 32 characters.
SECRET_RANDOM_BYTES = 24
VISIBLE_PREFIX_LENGTH = 10
MAX_TRACKERS = 50  # per trail system, revoked ones not counted
NAME_MAX_LENGTH = 100


@dataclass(frozen=True)
class WithSecret:
    tracker: Tracker
    secret: str


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def tracker_for_secret(secret: str) -> Tracker | None:
    """The live tracker a secret belongs to (None: unknown or revoked), with its system."""
    if not secret.startswith(SECRET_PREFIX):
        return None
    tracker = Tracker.objects.select_related("trail_system").filter(digest=digest(secret)).first()
    return tracker if tracker is not None and tracker.revoked_on is None else None


def tracking_addresses(secret: str) -> dict:
    """Where each app sends positions: Traccar Client's server URL (it adds the secret as
    `id`, or `device_id` in its JSON), OsmAnd's and GPSLogger's URL templates, OwnTracks' URL
    (the secret is its HTTP Basic password). The stream process takes them (config/asgi.py):
    on its own origin when it has one, else behind the pages' origin, where the reverse proxy
    routes them to it."""
    base = settings.STREAM_BASE_URL or settings.PUBLIC_BASE_URL
    osmand = f"{base}/track/osmand?id={secret}"
    return {
        "tracking_url": osmand,
        "url_templates": {
            "osmand": osmand + "&lat={0}&lon={1}&timestamp={2}&hdop={3}&altitude={4}"
            "&speed={5}&bearing={6}",
            "gpslogger": osmand + "&lat=%LAT&lon=%LON&timestamp=%TIMESTAMP&accuracy=%ACC"
            "&altitude=%ALT&speed=%SPD&bearing=%DIR",
        },
        "owntracks_url": f"{base}/track/owntracks",
    }


def trackers_of_system(system: TrailSystem) -> QuerySet[Tracker]:
    """The system's live trackers, oldest first, each with `grooming_now`. One query."""
    running = GroomingSession.objects.filter(tracker=OuterRef("pk"), ended_on__isnull=True)
    return Tracker.objects.filter(trail_system=system, revoked_on__isnull=True).annotate(
        grooming_now=Exists(running)
    )


@transaction.atomic
def recorder_tracker(*, system: TrailSystem, actor: Actor, condition: str | None = None) -> Tracker:
    """The tracker of this account's web recorder on the system (made on first use): the
    recorder page posts as it, signed in, so its secret is never used and never shown. With a
    grooming condition, the passes it starts from now on post that one."""
    if condition is not None and condition not in GROOMING_CONDITIONS:
        raise Invalid(
            "invalid_field", f"{condition!r} is not a grooming condition.", field="condition"
        )
    TrailSystem.objects.select_for_update().filter(pk=system.pk).first()
    tracker = Tracker.objects.filter(
        trail_system=system, recorder_uid=actor.uid, revoked_on__isnull=True
    ).first()
    if tracker is None:
        unused = SECRET_PREFIX + secrets.token_urlsafe(SECRET_RANDOM_BYTES)
        tracker = Tracker.objects.create(
            trail_system=system,
            name=f"Web recorder ({actor.uid})"[:NAME_MAX_LENGTH],
            condition=condition or DEFAULT_CONDITION,
            prefix=unused[:VISIBLE_PREFIX_LENGTH],
            digest=digest(unused),
            created_by=actor.uid,
            recorder_uid=actor.uid,
        )
    elif condition is not None and condition != tracker.condition:
        tracker.condition = condition
        tracker.save(update_fields=["condition"])
    return tracker


def tracker_or_404(tracker_id: str) -> Tracker:
    """A live tracker; a revoked one is gone."""
    tracker = (
        Tracker.objects.select_related("trail_system")
        .filter(pk=tracker_id, revoked_on__isnull=True)
        .first()
    )
    if tracker is None:
        raise NotFound("tracker_not_found", f"No tracker {tracker_id!r}.")
    return tracker


@transaction.atomic
def create_tracker(
    *, system: TrailSystem, name: str, actor: Actor, condition: str = DEFAULT_CONDITION
) -> WithSecret:
    """A new tracker; its secret is in the answer only."""
    name = name.strip()
    if not name or len(name) > NAME_MAX_LENGTH:
        raise Invalid("invalid_field", f"1 to {NAME_MAX_LENGTH} characters.", field="name")
    if condition not in SURFACE_CONDITIONS:
        raise Invalid(
            "invalid_field", f"{condition!r} is not a surface-conditions value.", field="condition"
        )
    # The system's row lock: concurrent creates cannot pass the limit.
    TrailSystem.objects.select_for_update().filter(pk=system.pk).first()
    if Tracker.objects.filter(trail_system=system, revoked_on__isnull=True).count() >= MAX_TRACKERS:
        raise Invalid("too_many_trackers", f"A trail system has at most {MAX_TRACKERS} trackers.")
    secret = SECRET_PREFIX + secrets.token_urlsafe(SECRET_RANDOM_BYTES)
    tracker = Tracker.objects.create(
        trail_system=system,
        name=name,
        condition=condition,
        prefix=secret[:VISIBLE_PREFIX_LENGTH],
        digest=digest(secret),
        created_by=actor.uid,
    )
    return WithSecret(tracker, secret)


@transaction.atomic
def revoke_tracker(*, tracker: Tracker, actor: Actor) -> None:
    """From now on its positions are refused (403); a session it was running ends now, and
    what it groomed stays groomed."""
    locked = Tracker.objects.select_for_update().get(pk=tracker.pk)
    if locked.revoked_on is None:
        locked.revoked_on = timezone.now()
        locked.save(update_fields=["revoked_on"])
    end_running_session(tracker=locked)
