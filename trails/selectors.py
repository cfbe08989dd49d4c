"""Reads of the management interface: each list is a fixed number of queries, and a trail's
geometry (and its elevations) is loaded only when the response shows it."""

from collections.abc import Iterable
from datetime import date, datetime, time, timedelta

from django.db.models import Max, Min, Prefetch, Q, QuerySet, prefetch_related_objects
from django.utils import timezone

from core.errors import NotFound
from core.limits import HISTORY_LIMIT
from core.queries import by_key
from trails.enums import Role
from trails.fields import API, TRAIL
from trails.models import Membership, Point, StatusChange, Trail, TrailActivity, TrailSystem

ALL_SYSTEMS_LIMIT = 500
# A trail as the management answers show it without its geoJson.
SHOWN_TRAIL_FIELDS = (
    "id", "trail_system", *TRAIL.names(API), "distance", "lat", "lng",
    "created_on", "created_by", "updated_on", "updated_by",
)  # fmt: skip
HEAVY_TRAIL_FIELDS = ("geometry", "elevations")
# Every trail row joins its system for the language; its large documents are not needed.
HEAVY_SYSTEM_FIELDS = tuple(
    f"trail_system__{name}"
    for name in ("weather", "published_updates", "activity_totals", "related_trail_systems")
)


def system_or_404(system_id: str) -> TrailSystem:
    system = TrailSystem.objects.filter(pk=system_id).first()
    if system is None:
        raise NotFound("trail_system_not_found", f"No trail system {system_id!r}.")
    return system


def trails_queryset(*, with_geometry: bool = False) -> QuerySet[Trail]:
    """Live trails with their activities; geometry deferred unless asked for."""
    deferred = ("elevations",) if with_geometry else HEAVY_TRAIL_FIELDS
    return (
        Trail.objects.select_related("trail_system")
        .defer(*deferred, *HEAVY_SYSTEM_FIELDS)
        .prefetch_related(Prefetch("activities", TrailActivity.objects.order_by("position", "id")))
    )


def trail_or_404(trail_id: str, *, with_geometry: bool = False) -> Trail:
    trail = trails_queryset(with_geometry=with_geometry).filter(pk=trail_id).first()
    if trail is None:
        raise NotFound("trail_not_found", f"No trail {trail_id!r}.")
    return trail


def trail_to_change_or_404(trail_id: str) -> Trail:
    """The live trail as a change needs it before writing (services.change_trail locks and
    reads the row itself): its id and its system's id and owner, for the caller's rights,
    and language, for the answer's activities (built from the service's row, with_activities);
    a third of trail_or_404's CPU."""
    trail = by_key(
        Trail.objects.select_related("trail_system")
        .only("id", "trail_system", "trail_system__owner", "trail_system__language")
        .filter(pk=trail_id)
    )
    if trail is None:
        raise NotFound("trail_not_found", f"No trail {trail_id!r}.")
    return trail


def trail_to_show_or_404(trail_id: str) -> Trail:
    """The live trail as a write answers it (the API's trail without geoJson): its shown
    columns, and of its system only the owner (the caller's rights) and the language (the
    activities' labels), not the system's forty other columns trail_or_404 reads."""
    trail = by_key(
        Trail.objects.select_related("trail_system")
        .only(*SHOWN_TRAIL_FIELDS, "trail_system__owner", "trail_system__language")
        .prefetch_related("activities")
        .filter(pk=trail_id)
    )
    if trail is None:
        raise NotFound("trail_not_found", f"No trail {trail_id!r}.")
    return trail


def with_activities(trail: Trail) -> Trail:
    """The trail with its activities read (one statement): a write's answer built from the
    row its service returned."""
    prefetch_related_objects([trail], "activities")
    return trail


def point_or_404(point_id: str) -> Point:
    point = Point.objects.select_related("trail_system").filter(pk=point_id).first()
    if point is None:
        raise NotFound("point_not_found", f"No point {point_id!r}.")
    return point


def trails_of_system(system: TrailSystem, *, with_geometry: bool = False) -> QuerySet[Trail]:
    return trails_queryset(with_geometry=with_geometry).filter(trail_system=system)


def trail_summaries(system: TrailSystem, *fields: str) -> QuerySet[Trail]:
    """The live trails of the system with only the given columns (no join, no activities)."""
    return Trail.objects.filter(trail_system=system).only(*fields)


def trail_geometries(trail_ids: Iterable[str]) -> dict[str, dict]:
    """The GeoJSON geometries of the given live trails, by id, in one query."""
    return dict(Trail.objects.filter(pk__in=list(trail_ids)).values_list("pk", "geometry"))


def points_of_system(system: TrailSystem) -> QuerySet[Point]:
    return Point.objects.select_related("trail_system").filter(trail_system=system)


def systems_with_roles(
    user, *, restricted_to: list[str] | None = None, everything: bool = False
) -> list[TrailSystem]:
    """The systems the user manages (within a key's `restricted_to` ids), by name, each with
    `.role` set; `everything` lists every system for a superAdmin (at most ALL_SYSTEMS_LIMIT)."""
    every = everything and user.is_super_admin
    systems = TrailSystem.objects.defer("weather", "published_updates", "activity_totals")
    if not every:
        systems = systems.filter(Q(owner=user) | Q(memberships__user=user)).distinct()
    if restricted_to is not None:
        systems = systems.filter(pk__in=restricted_to)
    systems = systems.order_by("name", "id")[: ALL_SYSTEMS_LIMIT if every else None]
    roles = dict(Membership.objects.filter(user=user).values_list("trail_system_id", "role"))
    systems = list(systems)
    for system in systems:
        administrator = user.is_super_admin or system.owner_id == user.pk
        system.role = Role.ADMINISTRATOR if administrator else roles.get(system.pk)
    return systems


def role_for(user, system: TrailSystem) -> str | None:
    """The caller's role on a system, or None when they do not manage it."""
    if user is None:
        return None
    if user.is_super_admin or system.owner_id == user.pk:
        return Role.ADMINISTRATOR
    membership = Membership.objects.filter(trail_system=system, user=user).only("role").first()
    return membership.role if membership else None


def managed_systems(user) -> QuerySet[TrailSystem]:
    """The systems `user` manages: owned or listed as a member; every system for a superAdmin."""
    systems = TrailSystem.objects.all()
    if user.is_super_admin:
        return systems
    member_of = Membership.objects.filter(user=user).values("trail_system_id")
    return systems.filter(Q(owner=user) | Q(pk__in=member_of))


def status_history(*, trail: Trail | None = None, point: Point | None = None, limit: int = 100):
    """The recorded changes of one trail (its activities included) or one point, newest
    first, at most `limit` (1 to HISTORY_LIMIT)."""
    changes = (
        StatusChange.objects.filter(trail=trail)
        if trail
        else StatusChange.objects.filter(point=point)
    )
    return list(changes.order_by("-at", "-id")[: max(1, min(limit, HISTORY_LIMIT))])


def start_of_day(day: date) -> datetime:
    """Midnight of `day` in the current time zone (an index's range, unlike `at__date`)."""
    return timezone.make_aware(datetime.combine(day, time.min))


def status_changes(
    *,
    system: TrailSystem | None = None,
    trail: Trail | None = None,
    point: Point | None = None,
    since: date | None = None,
    until: date | None = None,
) -> QuerySet[StatusChange]:
    """The recorded changes of one trail (its activities included), one point, or every trail
    and point of a system, newest first, from `since` to `until` (days, in the current time
    zone, both included); with the trail's or point's name (trashed rows included)."""
    if trail is not None:
        changes = StatusChange.objects.filter(trail=trail)
    elif point is not None:
        changes = StatusChange.objects.filter(point=point)
    else:
        changes = StatusChange.objects.filter(trail_system=system)
    if since is not None:
        changes = changes.filter(at__gte=start_of_day(since))
    if until is not None:
        changes = changes.filter(at__lt=start_of_day(until + timedelta(days=1)))
    return (
        changes.select_related("trail", "point")
        .only(
            *(f.name for f in StatusChange._meta.concrete_fields),
            "trail__name",
            "trail__trashed_on",
            "point__name",
            "point__trashed_on",
        )
        .order_by("-at", "-id")
    )


Location = tuple[float, float]  # (lat, lng)


def trails_centres(system_ids: Iterable[str]) -> dict[str, Location]:
    """The centre of the box around each system's live trails (their stored boxes, no
    geometry read), for the systems that have a trail; one query."""
    boxes = (
        Trail.objects.filter(trail_system_id__in=list(system_ids), south__isnull=False)
        .values("trail_system_id")
        .annotate(s=Min("south"), n=Max("north"), w=Min("west"), e=Max("east"))
    )
    return {
        box["trail_system_id"]: ((box["s"] + box["n"]) / 2, (box["w"] + box["e"]) / 2)
        for box in boxes
    }


def system_locations(systems: Iterable[TrailSystem]) -> dict[str, Location | None]:
    """Where each system is: its stored location (set by a manager, or derived from its
    trails by the last compile), else the centre of its trails for a system not compiled
    since its first trail, else None (no location and no trail). One query at most. The one
    place that decides a system's place for what derives from it (its time zone, its default
    SMS country)."""
    systems = list(systems)
    located: dict[str, Location | None] = {
        system.pk: (system.lat, system.lng)
        if system.lat is not None and system.lng is not None
        else None
        for system in systems
    }
    unplaced = [pk for pk, location in located.items() if location is None]
    if unplaced:
        located |= trails_centres(unplaced)
    return located


def system_location(system: TrailSystem) -> Location | None:
    return system_locations([system])[system.pk]


def unconfirmed_statuses(system: TrailSystem, *, now: datetime) -> dict[str, datetime | None]:
    """The live, visible trails whose status nobody confirmed within the system's
    `unconfirmed_after_hours`, each with when it was last confirmed (None: never); empty when
    the setting is off. One query."""
    if not system.unconfirmed_after_hours:
        return {}
    since = now - timedelta(hours=system.unconfirmed_after_hours)
    stale = Trail.objects.filter(trail_system=system, hidden=False).filter(
        Q(status_confirmed_on__isnull=True) | Q(status_confirmed_on__lt=since)
    )
    return dict(stale.values_list("pk", "status_confirmed_on"))


def administrators_emails(system: TrailSystem) -> list[str]:
    """The e-mail addresses of the system's owner and Administrator members, once each: who
    hears of what only Administrators may act on (a paused sign-up by text, a paused webhook)."""
    people = [system.owner] if system.owner else []
    administrators = system.memberships.filter(role=Role.ADMINISTRATOR).select_related("user")
    people += [membership.user for membership in administrators]
    return sorted({person.email for person in people if person.email})
