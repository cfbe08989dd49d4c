"""The one write of grooming: a track becomes a pass and a surfaceConditions update on each
trail it covered, in one transaction with one compile request."""

from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

import orjson
from django.db import transaction
from django.db.models import Max, Q, TextField
from django.db.models.functions import Cast
from django.utils import timezone

from core import events
from core.actors import Actor, Via
from core.compiles import request_compile
from core.dates import iso_ms
from core.errors import Invalid
from grooming.coverage import Coverage, TrailLines, coverage
from grooming.driving import Driving, driving
from grooming.models import GroomedTrail, GroomingPass
from grooming.tracks import Track
from trails import history
from trails.enums import TrailType
from trails.geodesy import Box, grown
from trails.geometry import lines
from trails.models import Trail, TrailSystem
from updates.enums import SURFACE_CONDITIONS, UpdateType
from updates.models import Update

DEFAULT_TOLERANCE_METERS = 15.0
TOLERANCE_RANGE = (5.0, 50.0)
DEFAULT_CONDITION = "groomed"
# Spec section 6: a trail is groomed by a track covering more than this fraction of it...
COVERAGE_THRESHOLD = 0.10
# ...and more of it than a track crossing it, or passing its end at a junction, covers
# (2 tolerances at a right angle, more at a slant, more with GPS error): else every short
# connector off a groomed trail would count. A trail lying wholly within the tolerance of the
# track was driven over end to end, however short.
JUNCTION_TOLERANCES = 3
WHOLE_TRAIL = 0.95
GROOMED_LIFETIME = timedelta(hours=24)
GROOMING = Update.Source.GROOMING
TrailUpdate = Update.trails.through
# A groomedAt this far ahead of the server's clock is a device clock's drift, not the future.
CLOCK_SKEW = timedelta(minutes=5)
# The status history's field for a grooming (its values are groomedAt times).
GROOMED_FIELD = "groomed"


@dataclass(frozen=True)
class CoveredTrail:
    trail_id: str
    name: str
    coverage: float


@dataclass(frozen=True)
class GroomingResult:
    """What the API and the command answer; track_id is None on a dry run."""

    track_id: str | None
    groomed_at: datetime
    trails: list[CoveredTrail]
    update_ids: list[str] = field(default_factory=list)

    @property
    def shows_until(self) -> datetime:
        return shows_until(self.groomed_at)

    @property
    def already_expired(self) -> bool:
        """Its updates would be expired on arrival: saved as it is, it would publish nothing."""
        return self.shows_until <= timezone.now()

    def document(self) -> dict:
        """The answer, in the interface's JSON names (the API's and the command's alike)."""
        return {
            "trackId": self.track_id,
            "groomedAt": iso_ms(self.groomed_at),
            "trails": [
                {"trailId": t.trail_id, "name": t.name, "coverage": t.coverage} for t in self.trails
            ],
            "updateIds": list(self.update_ids),
        }


def _check_options(tolerance_meters: float, condition: str) -> None:
    low, high = TOLERANCE_RANGE
    if not low <= tolerance_meters <= high:
        raise Invalid(
            "invalid_field", f"must be from {low:g} to {high:g}.", field="tolerance_meters"
        )
    if condition not in SURFACE_CONDITIONS:
        raise Invalid(
            "invalid_field", f"{condition!r} is not a surface-conditions value.", field="condition"
        )


def _to_milliseconds(moment: datetime) -> datetime:
    """The precision the interface shows, so the groomedAt answered is the one stored."""
    return moment.replace(microsecond=moment.microsecond // 1000 * 1000)


def pass_time(*, track: Track, groomed_at: datetime | None) -> datetime:
    """The pass's groomedAt: the one given, else the track's last time, else now."""
    return _to_milliseconds(groomed_at or track.last_time or timezone.now())


def shows_until(groomed_at: datetime) -> datetime:
    """When the grooming updates of a pass groomed at `groomed_at` expire (leave the map)."""
    return groomed_at + GROOMED_LIFETIME


def is_groomed(share: Coverage, tolerance_meters: float) -> bool:
    if share.share <= COVERAGE_THRESHOLD:
        return False
    return share.share >= WHOLE_TRAIL or share.metres > JUNCTION_TOLERANCES * tolerance_meters


def _near(track: Track, tolerance_meters: float) -> Q:
    """Trails whose extent comes within twice the tolerance of the track's extent (or with no
    extent recorded): the only ones it can cover, so a short track over a large system reads
    a few trails' geometry, not every trail's."""
    lngs = [point[0] for line in track.lines for point in line]
    lats = [point[1] for line in track.lines for point in line]
    box = grown(Box(min(lngs), min(lats), max(lngs), max(lats)), 2 * tolerance_meters)
    return Q(
        west__lte=box.east, east__gte=box.west, south__lte=box.north, north__gte=box.south
    ) | Q(west=None)


def measure(system: TrailSystem, track: Track, tolerance_meters: float) -> list[CoveredTrail]:
    """Every live trail of the system the track grooms, by coverage descending; lifts are
    never groomed. A track that comes near no trail at all is refused."""
    # The geometry as text decoded by orjson, as the compile reads it: several times faster
    # than the JSONField's own decoding, and most of a large system's bytes are geometry.
    trails = {
        trail_id: (name, orjson.loads(geometry))
        for trail_id, name, geometry in Trail.objects.filter(trail_system=system)
        .filter(_near(track, tolerance_meters))
        .exclude(type=TrailType.LIFT)
        .annotate(geometry_text=Cast("geometry", TextField()))
        .values_list("id", "name", "geometry_text")
    }
    shares = coverage(
        track.lines,
        [TrailLines(trail_id, lines(geometry)) for trail_id, (_, geometry) in trails.items()],
        tolerance_meters,
    )
    if not any(share.metres for share in shares.values()):
        raise Invalid(
            "invalid_geometry",
            f"The track lies wholly outside the trail system: it comes within "
            f"{tolerance_meters:g} m of none of its trails.",
        )
    covered = [
        CoveredTrail(trail_id, trails[trail_id][0], round(share.share, 4))
        for trail_id, share in shares.items()
        if is_groomed(share, tolerance_meters)
    ]
    return sorted(covered, key=lambda trail: (-trail.coverage, trail.name, trail.trail_id))


def record_grooming_track(
    *,
    system: TrailSystem,
    track: Track,
    actor: Actor,
    tolerance_meters: float = DEFAULT_TOLERANCE_METERS,
    condition: str = DEFAULT_CONDITION,
    groomed_at: datetime | None = None,
    dry_run: bool = False,
) -> GroomingResult:
    """Measure the track against the system's trails and, unless a dry run, keep the pass and
    post `condition` on every trail it groomed, expiring 24 hours after groomedAt, without
    notification, and record each groomed trail in the status history (path `grooming`).
    groomedAt defaults to the track's last time, else now."""
    _check_options(tolerance_meters, condition)
    groomed_at = pass_time(track=track, groomed_at=groomed_at)
    if groomed_at > timezone.now() + CLOCK_SKEW:
        raise Invalid(
            "invalid_field",
            f"{iso_ms(groomed_at)} is in the future (say when it was groomed, or check "
            "the clock of the device that recorded the track).",
            field="groomed_at",
        )
    with transaction.atomic():
        covered = measure(system, track, tolerance_meters)
        if dry_run:
            return GroomingResult(None, groomed_at, covered)
        grooming_pass = GroomingPass.objects.create(
            trail_system=system,
            groomed_at=groomed_at,
            uid=actor.uid,
            condition=condition,
            tolerance_meters=tolerance_meters,
            track=track.geometry(),
            **driving_fields(upload_driving(track, groomed_at)),
        )
        update_ids = post_conditions(grooming_pass, covered, actor.by_path(Via.GROOMING))
        if update_ids:
            request_compile(system, "grooming track")
        result = GroomingResult(grooming_pass.pk, groomed_at, covered, update_ids)
        events.announce_one(
            system_id=system.pk,
            type=events.GROOMING_RECORDED,
            data=lambda: {
                "trailSystemId": system.pk,
                **result.document(),
                "condition": condition,
            },
        )
    return result


def upload_driving(track: Track, groomed_at: datetime) -> Driving:
    """An upload's figures, its times moved to end at the pass's groomedAt: a track recorded
    in January and saved as groomed now is a session of the same length that ended now."""
    figures = driving(track.lines, track.times)
    if figures.ended_at is None:
        return figures
    return replace(
        figures,
        started_at=figures.started_at + (groomed_at - figures.ended_at),
        ended_at=groomed_at,
    )


def driving_fields(figures: Driving) -> dict:
    """The grooming log's figures of a pass, as its fields."""
    return {
        "started_at": figures.started_at,
        "active_seconds": figures.active_seconds,
        "pauses": figures.pauses,
        "paused_seconds": figures.paused_seconds,
        "driven_meters": figures.driven_meters,
    }


def post_conditions(
    grooming_pass: GroomingPass, covered: list[CoveredTrail], actor: Actor
) -> list[str]:
    """One update per groomed trail, dated as the pass, replacing that trail's earlier grooming
    update; a trail whose grooming update comes from a later pass (a backfill arrived late)
    keeps it. A fixed number of queries, however many trails."""
    trail_ids = [trail.trail_id for trail in covered]
    # Row locks on the trails: two passes over one trail at once cannot both keep an update.
    list(Trail.objects.select_for_update().filter(pk__in=trail_ids).values_list("id"))
    earlier = TrailUpdate.objects.filter(trail_id__in=trail_ids, update__source=GROOMING)
    kept = {
        trail_id
        for trail_id, groomed_at in earlier.values_list(
            "trail_id", "update__grooming__grooming_pass__groomed_at"
        )
        if groomed_at and groomed_at > grooming_pass.groomed_at
    }
    replaced = earlier.exclude(trail_id__in=kept)
    replaced_update_ids = set(replaced.values_list("update_id", flat=True))
    # An update someone widened to other trails by hand keeps those; one left naming no trail
    # is deleted.
    replaced.delete()
    Update.objects.filter(
        pk__in=replaced_update_ids, all_trails=False, trails__isnull=True
    ).delete()
    updates = {
        trail.trail_id: Update(
            trail_system_id=grooming_pass.trail_system_id,
            type=UpdateType.SURFACE_CONDITIONS,
            conditions=[grooming_pass.condition],
            expiration_date=shows_until(grooming_pass.groomed_at),
            notify=False,
            source=GROOMING,
            # Dated as the pass: a track uploaded hours after it was groomed says so on the map
            # ("Groomed for classic · 3 h ago"), not "just now".
            created_on=grooming_pass.groomed_at,
            updated_on=grooming_pass.groomed_at,
            created_by=grooming_pass.uid,
            updated_by=grooming_pass.uid,
        )
        for trail in covered
        if trail.trail_id not in kept
    }
    Update.objects.bulk_create(updates.values())
    TrailUpdate.objects.bulk_create(
        TrailUpdate(update_id=update.pk, trail_id=trail_id) for trail_id, update in updates.items()
    )
    GroomedTrail.objects.bulk_create(
        GroomedTrail(
            grooming_pass=grooming_pass,
            trail_id=trail.trail_id,
            coverage=trail.coverage,
            update=updates.get(trail.trail_id),
        )
        for trail in covered
    )
    _record_history(grooming_pass, list(updates), actor)
    Trail.objects.filter(pk__in=list(updates)).update(updated_on=timezone.now())
    return [update.pk for update in updates.values()]


def _record_history(grooming_pass: GroomingPass, trail_ids: list[str], actor: Actor) -> None:
    """Each newly groomed trail's history gets `groomed`: from the time of its previous
    grooming (null for the first) to this pass's groomedAt."""
    previous = dict(
        GroomedTrail.objects.filter(trail_id__in=trail_ids)
        .exclude(grooming_pass=grooming_pass)
        .values("trail_id")
        .annotate(last=Max("grooming_pass__groomed_at"))
        .values_list("trail_id", "last")
    )
    history.save_changes(
        history.trail_change(
            Trail(pk=trail_id, trail_system_id=grooming_pass.trail_system_id),
            actor,
            GROOMED_FIELD,
            iso_ms(previous.get(trail_id)),
            iso_ms(grooming_pass.groomed_at),
        )
        for trail_id in trail_ids
    )
