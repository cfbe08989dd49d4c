"""The writes of closures: close a stretch of a trail, change a closure, reopen it, and the
sweep that starts planned closures and ends those whose end has come (run with the schedules'
pass, every SCHEDULE_SWEEP_SECONDS). Each write records the start and the end in the status
history (field `closure`, the reason as the value), announces `closure.started` and
`closure.ended` (core.events) and writes the system's closures file, all in its own
transaction.

A closure changes nothing in the published map file (its trails keep their own status), so it
asks for no compile: only the closures file is written again, in the write's transaction, and
the live maps are told of it (`closures_published` in this process, CLOSURES_CHANGED on
PostgreSQL for the others). The compile that publishes the map file writes it too: a trail's
line edited moves the stretches on it."""

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import NotRequired, TypedDict, Unpack

from django.db import transaction
from django.db.models import Q
from django.dispatch import Signal
from django.utils import timezone

from closures import selectors
from closures.documents import closures_file
from closures.models import Closure, PublishedClosures
from closures.reasons import Reason
from closures.stretches import TrailLine
from core import events, listening, queueing
from core.actors import Actor, Via
from core.dates import iso_ms
from core.errors import Conflict, Invalid
from core.locks import transaction_lock
from trails import history
from trails.geometry import GeometryError, validate
from trails.models import Trail, TrailActivity, TrailSystem

logger = logging.getLogger(__name__)

# Sent with system_id inside the transaction of every write or settling of a closure, planned
# ones too (they ask for no compile): the CAP warnings (cap.tasks) hear of them here.
closure_changed = Signal()

# How far from the trail's line a place given as an end may lie (it is snapped onto it).
SNAP_METRES = 50.0
# The shortest stretch worth closing.
SHORTEST_METRES = 1.0
# The status history's field for closures (its values are reasons).
CLOSURE_FIELD = "closure"

# Sent with system_id, in the process that wrote it, once a transaction that changed a
# system's closures file has committed (the live maps of this process).
closures_published = Signal()


@dataclass(frozen=True)
class Place:
    lat: float
    lng: float


class ClosureFields(TypedDict):
    """What a write may set; a change passes only what it changes. An end is a place (snapped
    to the line) or a distance along it; neither end given: the whole trail."""

    start: NotRequired[Place | float | None]
    end: NotRequired[Place | float | None]
    activities: NotRequired[list[str]]
    reason: NotRequired[str]
    note: NotRequired[str]
    starts_at: NotRequired[datetime | None]
    ends_at: NotRequired[datetime | None]
    detour: NotRequired[str]
    detour_geometry: NotRequired[dict | None]


# The names of the fields a refusal is about (the API camel-cases them).
_NAMES = {"start": ("from", "from_meters"), "end": ("to", "to_meters")}


def _along(line: TrailLine, value: Place | float, end: str) -> float:
    place_name, metres_name = _NAMES[end]
    if isinstance(value, Place):
        located = line.locate(value.lng, value.lat)
        if located.off > SNAP_METRES:
            raise Invalid(
                "invalid_field",
                f"this place is {located.off:.0f} m from the trail; an end of a closure must "
                f"lie on it (within {SNAP_METRES:g} m).",
                field=place_name,
            )
        return located.along
    if not 0 <= value <= line.length + SHORTEST_METRES:
        raise Invalid(
            "invalid_field",
            f"must be from 0 to {line.length:.0f} (the trail's length in metres).",
            field=metres_name,
        )
    return line.clamp(value)


def _set_stretch(closure: Closure, line: TrailLine, fields: Mapping) -> None:
    """From the ends given (in either order); an end not given is the trail's start or end."""
    start = fields.get("start")
    end = fields.get("end")
    low = _along(line, start, "start") if start is not None else 0.0
    high = _along(line, end, "end") if end is not None else line.length
    low, high = sorted((low, high))
    if high - low < SHORTEST_METRES:
        raise Invalid(
            "invalid_field", "the two ends are the same place: close a stretch.", field="to"
        )
    closure.from_meters = low
    closure.to_meters = None if end is None and start is None else high


def _check_activities(trail: Trail, activities: list[str]) -> list[str]:
    known = set(TrailActivity.objects.filter(trail=trail).values_list("value", flat=True))
    unknown = [value for value in activities if value not in known]
    if unknown:
        raise Invalid(
            "invalid_field",
            f"{', '.join(unknown)}: not an activity of this trail.",
            field="activities",
        )
    return list(dict.fromkeys(activities))


def _check_detour(geometry: dict | None) -> dict | None:
    if geometry is None:
        return None
    try:
        clean = validate(geometry)
    except GeometryError as error:
        raise Invalid("invalid_field", str(error), field="detour_geometry") from None
    if clean["type"] != "LineString":
        raise Invalid("invalid_field", "must be a GeoJSON LineString.", field="detour_geometry")
    return clean


def _check_times(closure: Closure, now: datetime) -> None:
    if closure.ends_at is None:
        return
    if closure.ends_at <= closure.starts_at:
        raise Invalid("invalid_field", "must be after the start.", field="ends_at")
    if closure.ends_at <= now:
        raise Invalid("invalid_field", "must be in the future.", field="ends_at")


def _assign(
    closure: Closure, trail: Trail, fields: Mapping, now: datetime, *, new: bool = False
) -> None:
    """The fields onto the closure; a new closure's stretch is set even without start or end
    (the whole trail)."""
    if "reason" in fields and fields["reason"] not in Reason.values:
        raise Invalid(
            "invalid_field",
            f"{fields['reason']!r} is not a reason; one of {', '.join(Reason.values)}.",
            field="reason",
        )
    if "start" in fields or "end" in fields or new:
        _set_stretch(closure, TrailLine(trail.geometry), fields)
    if "activities" in fields:
        closure.activities = _check_activities(trail, fields["activities"])
    if "detour_geometry" in fields:
        closure.detour_geometry = _check_detour(fields["detour_geometry"])
    for name in ("reason", "note", "detour", "ends_at"):
        if name in fields:
            setattr(closure, name, fields[name])
    if "starts_at" in fields:
        closure.starts_at = fields["starts_at"] or now
    _check_times(closure, now)


def _was_in_effect(closure: Closure) -> bool:
    return closure.started_on is not None and closure.ended_on is None


def create_closure(
    *,
    trail: Trail,
    actor: Actor,
    now: datetime | None = None,
    **fields: Unpack[ClosureFields],
) -> Closure:
    """Close a stretch of the trail (the whole trail without ends), now or from startsAt."""
    now = now or timezone.now()
    with transaction.atomic():
        locked = Trail.objects.select_for_update().get(pk=trail.pk)
        closure = Closure(
            trail=locked,
            trail_system_id=locked.trail_system_id,
            starts_at=now,
            created_by=actor.uid,
            updated_by=actor.uid,
        )
        if "reason" not in fields:
            raise Invalid("invalid_field", "required.", field="reason")
        _assign(closure, locked, fields, now, new=True)
        closure.save()
        _settle(closure, actor, now)
        publish_closures(system_id=closure.trail_system_id, now=now)
    return closure


def change_closure(
    *, closure: Closure, actor: Actor, now: datetime | None = None, **fields: Unpack[ClosureFields]
) -> Closure:
    """Change what was given; an ended closure stays as it ended."""
    now = now or timezone.now()
    with transaction.atomic():
        locked = _locked(closure)
        if locked.ended_on is not None:
            raise Conflict("closure_ended", "This closure has ended; close the stretch anew.")
        in_effect = _was_in_effect(locked)
        _assign(locked, locked.trail, fields, now)
        locked.updated_by, locked.updated_on = actor.uid, now
        if in_effect and locked.starts_at > now:
            # Moved ahead: out of effect until its new start, when the sweep starts it again.
            _record(locked, actor, events.CLOSURE_ENDED, now)
            locked.started_on = None
        locked.save()
        _settle(locked, actor, now)
        publish_closures(system_id=locked.trail_system_id, now=now)
    return locked


def end_closure(*, closure: Closure, actor: Actor, now: datetime | None = None) -> Closure:
    """Reopen the stretch now (a planned closure is called off); the closure stays, ended,
    in the lists with ?all=true and in the history."""
    now = now or timezone.now()
    with transaction.atomic():
        locked = _locked(closure)
        if locked.ended_on is None:
            _end(locked, actor, now)
            publish_closures(system_id=locked.trail_system_id, now=now)
            closure_changed.send(sender=None, system_id=locked.trail_system_id)
    return locked


def settle_closures(*, now: datetime | None = None) -> int:
    """Start the planned closures whose start has come and end those whose end has: each in
    its own transaction, one another pass holds skipped. Returns how many were settled."""
    now = now or timezone.now()
    due = Closure.objects.filter(ended_on__isnull=True).filter(
        Q(started_on__isnull=True, starts_at__lte=now) | Q(ends_at__lte=now)
    )
    settled = 0
    for closure_id in due.values_list("pk", flat=True):
        try:
            with transaction.atomic():
                locked = (
                    Closure.objects.select_for_update(skip_locked=True)
                    .filter(pk=closure_id)
                    .first()
                )
                if locked is not None and locked.ended_on is None:
                    _settle(locked, Actor(locked.updated_by, Via.SCHEDULE), now)
                    publish_closures(system_id=locked.trail_system_id, now=now)
                    settled += 1
        except Exception:
            logger.exception("Closure %s not settled", closure_id)
    return settled


def publish_closures(*, system_id: str, now: datetime, language: str = "") -> bool:
    """Write the system's closures file, in the caller's transaction (a closure's write, the
    sweep's, or the compile that publishes the map file). Writers of one system take turns
    until they commit (an advisory lock), so the last one reads every closure committed
    before it, as of the later of `now` and the clock once it holds the lock: a closure that
    a writer it waited for started at that writer's `now` is in effect then. An unchanged
    file is left as it is and nobody is told. `language`: the system's, when the caller has
    read it (the compile). Returns whether it changed."""
    transaction_lock(f"closures:{system_id}")
    now = max(now, timezone.now())
    closures = selectors.closures_in_effect(system_id, now)
    language = language or TrailSystem.objects.values_list("language", flat=True).get(pk=system_id)
    body = closures_file(system_id, closures, selectors.stretches(closures), language)
    stored = (
        PublishedClosures.objects.filter(trail_system_id=system_id)
        .values_list("body", flat=True)
        .first()
    )
    if stored is not None and bytes(stored) == body:
        return False
    PublishedClosures.objects.bulk_create(
        [PublishedClosures(trail_system_id=system_id, body=body, compiled_on=now)],
        update_conflicts=True,
        unique_fields=["trail_system"],
        update_fields=["body", "compiled_on"],
    )
    listening.notify(listening.CLOSURES_CHANGED, system_id)
    queueing.on_commit(lambda: closures_published.send(sender=None, system_id=system_id))
    return True


def _locked(closure: Closure) -> Closure:
    return (
        Closure.objects.select_for_update(of=("self",)).select_related("trail").get(pk=closure.pk)
    )


def _settle(closure: Closure, actor: Actor, now: datetime) -> None:
    """Start the closure if its start has come, end it if its end has; after every write."""
    if closure.ended_on is None and closure.started_on is None and closure.starts_at <= now:
        closure.started_on = now
        Closure.objects.filter(pk=closure.pk).update(started_on=now)
        _record(closure, actor, events.CLOSURE_STARTED, now)
    if closure.ended_on is None and closure.ends_at is not None and closure.ends_at <= now:
        _end(closure, actor, closure.ends_at)
    closure_changed.send(sender=None, system_id=closure.trail_system_id)


def _end(closure: Closure, actor: Actor, at: datetime) -> None:
    if _was_in_effect(closure):
        _record(closure, actor, events.CLOSURE_ENDED, at)
    closure.ended_on = at
    Closure.objects.filter(pk=closure.pk).update(ended_on=at)


def _record(closure: Closure, actor: Actor, event_type: str, at: datetime) -> None:
    """The history's record and the event of a start or an end."""
    started = event_type == events.CLOSURE_STARTED
    change = history.trail_change(
        closure.trail,
        actor,
        CLOSURE_FIELD,
        None if started else closure.reason,
        closure.reason if started else None,
    )
    change.at = at
    history.save_changes([change])
    events.announce_one(
        system_id=closure.trail_system_id,
        type=event_type,
        data=lambda: closure_event(closure, actor, at),
    )


def closure_event(closure: Closure, actor: Actor, at: datetime) -> dict:
    """The data of `closure.started` and `closure.ended`."""
    return {
        "trailSystemId": closure.trail_system_id,
        "closureId": closure.pk,
        "trailId": closure.trail_id,
        "trailName": closure.trail.name,
        "activities": list(closure.activities),
        "reason": closure.reason,
        "note": closure.note,
        "fromMeters": round(closure.from_meters, 1),
        "toMeters": None if closure.to_meters is None else round(closure.to_meters, 1),
        "startsAt": iso_ms(closure.starts_at),
        "endsAt": iso_ms(closure.ends_at) if closure.ends_at else None,
        "at": iso_ms(at),
        "via": actor.via,
    }
