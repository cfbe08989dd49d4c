"""Grooming sessions: a tracker's positions become a grooming pass while the machine grooms.

A position that passes the checks is stored in the tracker's running session (a new one starts
with the first position, or after 15 minutes without one). The session's pass is the one an
upload makes (grooming.services: the same coverage rules, updates and history), measured again
every MEASURE_SECONDS while positions arrive, so each trail is marked groomed, and published,
within a minute of the machine covering it. A session ends 15 minutes after its last position
(the periodic sweep) or when ended by hand; its pass then stands as an upload's would."""

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import F, Max, Min
from django.dispatch import Signal
from django.utils import timezone

from core import events, listening, queueing
from core.actors import Actor, Via
from core.caching import cached
from core.compiles import request_compile
from core.dates import iso_ms
from core.errors import Invalid
from grooming.driving import Driving, driving
from grooming.models import GroomedTrail, GroomingPass, GroomingSession, Tracker, TrackerPosition
from grooming.services import (
    CLOCK_SKEW,
    DEFAULT_TOLERANCE_METERS,
    CoveredTrail,
    driving_fields,
    measure,
    post_conditions,
    shows_until,
)
from grooming.tracks import Track
from trails.geodesy import metres_between
from trails.models import Trail, TrailSystem
from updates.models import Update

SESSION_IDLE = timedelta(minutes=15)
MEASURE_SECONDS = 10.0
# While a session runs, its updates' expiration follows its groomedAt in steps this long (each
# step is a compile of the system); the end sets it exactly.
EXTEND_BEHIND = timedelta(minutes=10)
MIN_INTERVAL = timedelta(seconds=1)  # per tracker: a closer position is dropped
MAX_ACCURACY_METRES = 50.0  # a position less accurate than this is dropped
# Faster than this from the session's previous position, a position is dropped: a snowcat
# grooms at 5 m/s and a snowmobile drives between trails at up to 25, and a few GPS fixes
# JUMP_METRES off are no movement at all. A jump from trail to trail is not a groomer's.
MAX_SPEED_METRES_PER_SECOND = 25.0
JUMP_METRES = 100.0
# How far outside the extent of the system's trails a position may lie; beyond it, dropped.
AREA_MARGIN_METRES = 5_000.0
AREA_CACHE_SECONDS = 300

# A machine moved, started or stopped grooming (sent after the commit, with `system_id`): this
# process's live map hub sends the machines' places (public/live.py); the other processes hear
# it on PostgreSQL's GROOMERS_MOVED channel.
groomers_moved = Signal()
# A running session has positions to measure (sent in the writing transaction, with
# `session_id`): grooming.tasks queues the measurement once it commits. A signal, because the
# tasks call this module: it imports none of them.
measurement_due = Signal()


@dataclass(frozen=True)
class Position:
    lng: float
    lat: float
    recorded_at: datetime
    accuracy: float | None = None


@dataclass(frozen=True)
class Received:
    """What became of a request's positions."""

    stored: int
    dropped: int


def _area(system_id: str) -> tuple[float, float, float, float] | None:
    """The extent (west, south, east, north) of the system's trails; cached a few minutes."""

    def extent():
        box = Trail.objects.filter(trail_system_id=system_id).aggregate(
            west=Min("west"), south=Min("south"), east=Max("east"), north=Max("north")
        )
        if box["west"] is not None:
            return tuple(box.values())
        # No trail extent recorded: the system's location, when it has one.
        lat, lng = TrailSystem.objects.values_list("lat", "lng").get(pk=system_id)
        return None if lat is None or lng is None else (lng, lat, lng, lat)

    return cached(f"grooming:area:{system_id}", extent, AREA_CACHE_SECONDS)


def _outside(area: tuple[float, float, float, float] | None, position: Position) -> bool:
    """Farther than AREA_MARGIN_METRES from the extent of the trails (no trails: everywhere)."""
    if area is None:
        return True
    west, south, east, north = area
    nearest_lng = min(max(position.lng, west), east)
    nearest_lat = min(max(position.lat, south), north)
    metres = metres_between((position.lat, position.lng), (nearest_lat, nearest_lng))
    return metres > AREA_MARGIN_METRES


def _actor(tracker: Tracker) -> Actor:
    return Actor(tracker.created_by, Via.GROOMING)


@transaction.atomic
def receive_positions(
    *, tracker: Tracker, positions: list[Position], now: datetime | None = None
) -> Received:
    """Store the plausible positions in the tracker's running session; the others (from the
    future, from before the tracker existed or its last session ended, far outside the
    system, inaccurate, less than a second after the previous one, or faster than a groomer
    from it) are counted on the tracker and dropped. Positions are taken in the order
    recorded."""
    now = now or timezone.now()
    locked = Tracker.objects.select_for_update().get(pk=tracker.pk)
    if locked.revoked_on is not None:
        return Received(0, len(positions))
    area = _area(locked.trail_system_id)
    session = GroomingSession.objects.filter(tracker=locked, ended_on__isnull=True).first()
    earliest = None if session else _earliest_new_session(locked)
    stored: list[TrackerPosition] = []
    dropped = 0
    for position in sorted(positions, key=lambda p: p.recorded_at):
        if (
            position.recorded_at > now + CLOCK_SKEW
            or (earliest is not None and position.recorded_at <= earliest)
            or (position.accuracy is not None and position.accuracy > MAX_ACCURACY_METRES)
            or (session is not None and not _follows(session, position))
            or _outside(area, position)
        ):
            dropped += 1
            continue
        if session is not None and position.recorded_at - session.last_position_at > SESSION_IDLE:
            TrackerPosition.objects.bulk_create(stored)
            stored = []
            _end(session, now)
            session = None
        if session is None:
            session = _start(locked, position, now)
        session.last_position_at = position.recorded_at
        session.last_lng, session.last_lat = position.lng, position.lat
        stored.append(
            TrackerPosition(
                session=session,
                recorded_at=position.recorded_at,
                lng=position.lng,
                lat=position.lat,
                accuracy=position.accuracy,
            )
        )
    TrackerPosition.objects.bulk_create(stored)
    tracker_fields = {"dropped_positions": F("dropped_positions") + dropped} if dropped else {}
    measuring = bool(stored) and _measurement_due(session, now)
    if stored:
        tracker_fields["last_position_on"] = now
        session.last_received_on = now
        fields = ["last_position_at", "last_lng", "last_lat", "last_received_on"]
        if measuring:  # claimed in the same write
            session.measured_on = now
            fields.append("measured_on")
        session.save(update_fields=fields)
    if tracker_fields:
        Tracker.objects.filter(pk=locked.pk).update(**tracker_fields)
    if stored:
        _tell_moved(locked.trail_system_id)
    if measuring:
        measurement_due.send(sender=None, session_id=session.pk)
    return Received(len(stored), dropped)


def _earliest_new_session(tracker: Tracker) -> datetime | None:
    """A session starts with a position recorded after this: after the tracker was made (a
    tracker app's, give or take the clocks' skew) and after its last session's last position,
    so a request replayed once a session has ended makes no second pass. The web recorder's
    tracker is made by its first batch, whose positions may be older."""
    ended = GroomingSession.objects.filter(tracker=tracker).aggregate(
        latest=Max("last_position_at")
    )["latest"]
    made = None if tracker.recorder_uid else tracker.created_on - CLOCK_SKEW
    return max((moment for moment in (made, ended) if moment is not None), default=None)


def _follows(session: GroomingSession, position: Position) -> bool:
    """Whether the position can follow the session's last one: at least MIN_INTERVAL later,
    and no farther than a groomer drives in the time between."""
    elapsed = (position.recorded_at - session.last_position_at).total_seconds()
    if elapsed < MIN_INTERVAL.total_seconds():
        return False
    metres = metres_between((session.last_lat, session.last_lng), (position.lat, position.lng))
    return metres <= JUMP_METRES + MAX_SPEED_METRES_PER_SECOND * elapsed


def _tell_moved(system_id: str) -> None:
    """The live map streams of every process learn it once the transaction commits."""
    listening.notify(listening.GROOMERS_MOVED, system_id)
    queueing.on_commit(lambda: groomers_moved.send(sender=None, system_id=system_id))


def _measurement_due(session: GroomingSession, now: datetime) -> bool:
    """Whether this request queues the session's next measurement: once per MEASURE_SECONDS
    (the sweep measures what arrived after the last one)."""
    return not session.measured_on or now - session.measured_on >= timedelta(
        seconds=MEASURE_SECONDS
    )


def _start(tracker: Tracker, position: Position, now: datetime) -> GroomingSession:
    grooming_pass = GroomingPass.objects.create(
        trail_system_id=tracker.trail_system_id,
        groomed_at=position.recorded_at,
        uid=tracker.created_by,
        condition=tracker.condition,
        tolerance_meters=DEFAULT_TOLERANCE_METERS,
        track={"type": "MultiLineString", "coordinates": []},
    )
    session = GroomingSession.objects.create(
        tracker=tracker,
        grooming_pass=grooming_pass,
        started_at=position.recorded_at,
        last_position_at=position.recorded_at,
        last_received_on=now,
        last_lng=position.lng,
        last_lat=position.lat,
    )
    events.announce_one(
        system_id=tracker.trail_system_id,
        type=events.GROOMING_STARTED,
        data=lambda: {
            "trailSystemId": tracker.trail_system_id,
            "trackId": grooming_pass.pk,
            "trackerId": tracker.pk,
            "trackerName": tracker.name,
            "startedAt": iso_ms(session.started_at),
            "condition": tracker.condition,
        },
    )
    return session


def _track(session: GroomingSession) -> Track | None:
    """The session's positions as one line (None before two distinct positions). Positions
    are only ever appended in the order recorded, so the last one's time is the session's
    last_position_at: no time is read per position."""
    line = [
        [lng, lat]
        for lng, lat in TrackerPosition.objects.filter(session=session)
        .order_by("recorded_at", "id")
        .values_list("lng", "lat")
    ]
    if len({(lng, lat) for lng, lat in line}) < 2:
        return None
    return Track([line], session.last_position_at)


def _measure(session: GroomingSession, *, ending: bool = False) -> None:
    """Measure the session's track so far: mark the trails newly groomed (their updates, the
    history, a compile), keep the track and groomedAt on the pass, announce each new trail.
    A measurement that grooms no new trail compiles only when the pass's updates fall
    EXTEND_BEHIND behind its groomedAt, or at the end: not every few seconds."""
    session.measured_on = timezone.now()
    track = _track(session)
    if track is None:
        session.save(update_fields=["measured_on"])
        return
    grooming_pass = session.grooming_pass
    system = grooming_pass.trail_system
    try:
        covered = measure(system, track, grooming_pass.tolerance_meters)
    except Invalid:  # nowhere near a trail yet
        covered = []
    grooming_pass.track = track.geometry()
    grooming_pass.groomed_at = track.last_time.replace(
        microsecond=track.last_time.microsecond // 1000 * 1000
    )
    grooming_pass.save(update_fields=["track", "groomed_at"])
    known = {g.trail_id: g for g in grooming_pass.groomed_trails.all()}
    new = [trail for trail in covered if trail.trail_id not in known]
    for trail in covered:
        if trail.trail_id in known:
            known[trail.trail_id].coverage = trail.coverage
    GroomedTrail.objects.bulk_update(known.values(), ["coverage"])
    if new:
        post_conditions(grooming_pass, new, _actor(session.tracker))
        _announce_trails(grooming_pass, new)
    # Every update of the pass shows for 24 hours after its groomedAt, as an upload's do.
    until = shows_until(grooming_pass.groomed_at)
    extended = Update.objects.filter(
        grooming__grooming_pass=grooming_pass,
        expiration_date__lt=until if ending else until - EXTEND_BEHIND,
    ).update(expiration_date=until)
    if new or extended:
        request_compile(system, "grooming session")
    session.measured_positions = track.point_count
    session.save(update_fields=["measured_on", "measured_positions"])


def _announce_trails(grooming_pass: GroomingPass, trails: list[CoveredTrail]) -> None:
    events.announce(
        system_id=grooming_pass.trail_system_id,
        types=[events.TRAIL_GROOMED],
        build=lambda: [
            events.Event(
                events.TRAIL_GROOMED,
                {
                    "trailSystemId": grooming_pass.trail_system_id,
                    "trackId": grooming_pass.pk,
                    "trailId": trail.trail_id,
                    "name": trail.name,
                    "coverage": trail.coverage,
                    "condition": grooming_pass.condition,
                    "groomedAt": iso_ms(grooming_pass.groomed_at),
                },
            )
            for trail in trails
        ],
    )


def _end(session: GroomingSession, now: datetime) -> None:
    """The last measurement, then the session ends: its pass stands as an upload's would
    (announced as grooming.recorded too); a session that never came near a trail leaves no
    pass, as such an upload is refused."""
    _measure(session, ending=True)
    session.ended_on = now
    session.save(update_fields=["ended_on"])
    grooming_pass = session.grooming_pass
    figures = driving_fields(session_driving(session))
    GroomingPass.objects.filter(pk=grooming_pass.pk).update(**figures)
    _tell_moved(grooming_pass.trail_system_id)
    groomed = list(grooming_pass.groomed_trails.select_related("trail").order_by("-coverage"))
    document = {
        "trailSystemId": grooming_pass.trail_system_id,
        "trackId": grooming_pass.pk,
        "groomedAt": iso_ms(grooming_pass.groomed_at),
        "trails": [
            {"trailId": g.trail_id, "name": g.trail.name, "coverage": g.coverage} for g in groomed
        ],
        "condition": grooming_pass.condition,
    }
    events.announce_one(
        system_id=grooming_pass.trail_system_id,
        type=events.GROOMING_ENDED,
        data=lambda: {**document, "trackerId": session.tracker_id, "endedAt": iso_ms(now)},
    )
    if not groomed and not _comes_near_a_trail(session):
        grooming_pass.delete()
        return
    events.announce_one(
        system_id=grooming_pass.trail_system_id,
        type=events.GROOMING_RECORDED,
        data=lambda: {
            **document,
            "updateIds": [g.update_id for g in groomed if g.update_id],
        },
    )


def session_driving(session: GroomingSession) -> Driving:
    """How long and how far the session's machine drove, from its positions."""
    rows = TrackerPosition.objects.filter(session=session).order_by("recorded_at", "id")
    positions = list(rows.values_list("lng", "lat", "recorded_at"))
    return driving([[[lng, lat] for lng, lat, _ in positions]], [at for *_, at in positions])


def _comes_near_a_trail(session: GroomingSession) -> bool:
    track = _track(session)
    if track is None:
        return False
    try:
        measure(session.grooming_pass.trail_system, track, session.grooming_pass.tolerance_meters)
    except Invalid:
        return False
    return True


def _running(*, skip_locked: bool, **lookup) -> GroomingSession | None:
    """A running session, locked for this transaction (None when another process holds it
    and `skip_locked`, or when it has ended)."""
    return (
        GroomingSession.objects.select_for_update(skip_locked=skip_locked)
        .select_related("grooming_pass__trail_system", "tracker")
        .filter(ended_on__isnull=True, **lookup)
        .first()
    )


def measure_session(*, session_id: str) -> None:
    """The task's work: measure a running session unless another process is at it."""
    with transaction.atomic():
        if session := _running(skip_locked=True, pk=session_id):
            _measure(session)


def end_running_session(*, tracker: Tracker, now: datetime | None = None) -> bool:
    """End the tracker's running session now (a revocation, "Stop" in the web app)."""
    with transaction.atomic():
        session = _running(skip_locked=False, tracker=tracker)
        if session is None:
            return False
        _end(session, now or timezone.now())
        return True


def sweep_sessions(*, now: datetime | None = None) -> int:
    """Beat's pass: end the sessions 15 minutes without a position, and measure those with
    positions not measured yet whose positions stopped coming (a session still receiving
    them claims its next measurement within MEASURE_SECONDS itself: measuring it here too
    would double the work). Returns how many sessions it ended."""
    now = now or timezone.now()
    ended = 0
    running = GroomingSession.objects.filter(ended_on__isnull=True)
    for session_id in running.filter(last_received_on__lte=now - SESSION_IDLE).values_list(
        "pk", flat=True
    ):
        with transaction.atomic():
            if session := _running(skip_locked=True, pk=session_id):
                _end(session, now)
                ended += 1
    unmeasured = running.filter(
        last_received_on__gt=F("measured_on"),
        measured_on__lt=now - timedelta(seconds=MEASURE_SECONDS),
    )
    for session_id in unmeasured.values_list("pk", flat=True):
        measure_session(session_id=session_id)
    return ended
