"""Writes of trail systems, members, trails, activities and points: the rules of sections 2, 3
and 8, whichever interface asks (API, web app, importer, demo loader, commands).

Every function takes keyword arguments only, runs in one transaction and owns its side
effects: the audit stamps, the compile request, elevations whenever a geometry is set, Closed
closing every activity, and the status history. Changes are field-level UPDATEs of only the
fields given, under a row lock where rows depend on each other, so concurrent changes of
different fields never lose either."""

import re
from collections.abc import Mapping, Sequence
from typing import TypedDict, Unpack

from django.contrib.auth import get_user_model
from django.db import connection, models, transaction
from django.utils import timezone

from core.actors import Actor, Via
from core.compiles import request_compile, request_listing_rebuild, request_unpublish
from core.errors import Invalid, NotFound
from core.limits import TEXT_LIMIT, categories_problem, some_of
from core.links import check_links, is_http_url
from core.queries import by_key
from core.text import check_single_line
from trails import history
from trails.countries import normalized_countries
from trails.enums import ActivityStatus, TrailStatus
from trails.geometry import GeometryError
from trails.models import Membership, Point, StatusChange, Trail, TrailActivity, TrailSystem
from trails.selectors import SHOWN_TRAIL_FIELDS
from trails.tasks import request_elevations_on_commit
from trails.timezones import check_zone

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def write_fields(model: type[models.Model], pk: str, changes: Mapping, by: str) -> dict:
    """One UPDATE of only the given columns, stamped with who and when; returns the stamp."""
    stamp = {"updated_on": timezone.now(), "updated_by": by}
    model._default_manager.filter(pk=pk).update(**changes, **stamp)
    return stamp


# Trail systems


class SystemDetails(TypedDict, total=False):
    """A trail system's details as the services take them, by keyword (the model's names)."""

    id: str  # on creation only: an import keeps the system's id
    owner: models.Model | None  # the web app's account field
    description: str
    phone_number: str
    website: str
    language: str
    depth_measurement: str
    length_measurement: str
    temp_measurement: str
    inactive: bool
    blocked: bool
    hide_name: bool
    promote_trail_hub: bool
    lat: float | None
    lng: float | None
    groomers_live: bool
    time_zone: str
    unconfirmed_after_hours: int | None
    subscription: str
    sms_countries: list[str] | None
    sms_confirmations_per_day: int
    reports_per_day: int
    license_url: str
    attribution_name: str
    attribution_url: str
    hidden_activities: list[str] | None


class SystemChanges(SystemDetails, total=False):
    name: str


def _checked_system_fields(fields: Mapping) -> dict:
    """A system's details as stored: the website with a scheme, the SMS countries as
    upper-case ISO codes and the time zone as an IANA name (an unknown one refused)."""
    fields = dict(fields)
    check_single_line(fields, "name", "attribution_name")
    for name in ("license_url", "attribution_url"):
        if fields.get(name):
            _check_http_url(fields[name], name)
    if "website" in fields:
        fields["website"] = normalize_website(fields["website"])
    if "sms_countries" in fields:
        fields["sms_countries"] = normalized_countries(fields["sms_countries"])
    if "time_zone" in fields:
        fields["time_zone"] = check_zone(fields["time_zone"] or "")
    return fields


def normalize_website(website: str) -> str:
    """A website without a scheme gets http:// (the stored value is what the limit counts)."""
    if website and not _SCHEME.match(website):
        website = f"http://{website}"
    if len(website) > TEXT_LIMIT:
        raise Invalid(
            "invalid_field",
            f"at most {TEXT_LIMIT} characters with its http:// prefix.",
            field="website",
        )
    if website:
        _check_http_url(website, "website")
    return website


def _check_http_url(url: str, field: str) -> None:
    if not is_http_url(url):
        raise Invalid("invalid_field", "must be an http:// or https:// URL.", field=field)


@transaction.atomic
def create_trail_system(
    *,
    name: str,
    owner_uid: str | None,
    actor: Actor,
    members: Sequence[tuple[str, str]] = (),
    trails: Sequence[tuple[Trail, Sequence[TrailActivity]]] = (),
    points: Sequence[Point] = (),
    **details: Unpack[SystemDetails],
) -> TrailSystem:
    """A system with its owner and members and, when imported, its trails (each with its
    activities) and points, given as unsaved rows; queues elevations and the first compile."""
    check_single_line({"name": name}, "name")
    fields = _checked_system_fields(details)
    user_model = get_user_model()
    # A system copied without an owner is managed by its members and super admins.
    owner = user_model.objects.get_or_create(uid=owner_uid)[0] if owner_uid else None
    system = TrailSystem.objects.create(name=name, owner=owner, updated_by=actor.uid, **fields)
    for uid, role in members:
        user, _ = user_model.objects.get_or_create(uid=uid)
        Membership.objects.create(trail_system=system, user=user, role=role)
    for trail, activities in trails:
        trail.trail_system = system
        trail.created_by = trail.updated_by = actor.uid
        if trail.status == TrailStatus.CLOSED:
            for activity in activities:
                activity.status = ActivityStatus.CLOSED
    Trail.objects.bulk_create([trail for trail, _ in trails])
    TrailActivity.objects.bulk_create(
        [_on_trail(activity, trail) for trail, activities in trails for activity in activities]
    )
    for point in points:
        point.trail_system = system
        point.created_by = point.updated_by = actor.uid
    Point.objects.bulk_create(points)
    for trail, _ in trails:
        if trail.elevations is None:  # an imported profile is kept
            request_elevations_on_commit(trail.pk)
    # The history starts with the statuses the rows came with, along the actor's path (import).
    history.save_changes(
        [
            history.trail_change(trail, actor, history.STATUS, None, trail.status)
            for trail, _ in trails
        ]
        + [
            history.point_change(point, actor, history.STATUS, None, point.status)
            for point in points
        ]
    )
    request_compile(system, "trail system created")
    request_listing_rebuild()
    return system


def _on_trail(activity: TrailActivity, trail: Trail) -> TrailActivity:
    activity.trail = trail
    return activity


# What the legacy all-systems list shows of a system, besides the compile's trail counts.
LISTED_FIELDS = frozenset({"name", "lat", "lng", "inactive", "blocked", "hidden_activities"})


@transaction.atomic
def change_trail_system(
    *, system: TrailSystem, actor: Actor, **changes: Unpack[SystemChanges]
) -> None:
    """Public details only (PATCH /trail-systems/:id): no recompile; the all-systems list is
    rebuilt when what it shows changed. A location set replaces the derived one; a location
    cleared is derived from the trails again at once."""
    changes = _checked_system_fields(changes)
    located = {"lat", "lng"} & changes.keys()
    if located:
        changes["location_derived"] = False
    write_fields(TrailSystem, system.pk, changes, actor.uid)
    if located:
        derive_location(system_id=system.pk)
    if LISTED_FIELDS & changes.keys():
        request_listing_rebuild()


# A system whose location no manager set (derived, or not known at all) moves to the centre
# of the box around its live trails' stored boxes (nowhere without one), when that differs.
_DERIVE_LOCATION = """
    UPDATE trails_trailsystem AS s
    SET lat = c.lat, lng = c.lng, location_derived = c.lat IS NOT NULL
    FROM (
      SELECT (min(south) + max(north)) / 2 AS lat, (min(west) + max(east)) / 2 AS lng
      FROM trails_trail
      WHERE trail_system_id = %(id)s AND trashed_on IS NULL AND south IS NOT NULL
    ) AS c
    WHERE s.id = %(id)s AND (s.location_derived OR s.lat IS NULL OR s.lng IS NULL)
      AND (s.lat, s.lng) IS DISTINCT FROM (c.lat, c.lng)
"""


def derive_location(*, system_id: str) -> None:
    """A system whose location no manager set is placed at the centre of its trails (no
    location without a trail): every compile calls this, so the place follows the trails
    (inside the compile's transaction; one statement, as a compile's round trips are its
    floor). The legacy list, which leaves out a system without a location, is rebuilt on a
    change."""
    with connection.cursor() as cursor:
        cursor.execute(_DERIVE_LOCATION, {"id": system_id})
        moved = cursor.rowcount
    if moved:
        request_listing_rebuild()


@transaction.atomic
def delete_trail_system(*, system: TrailSystem, actor: Actor) -> None:
    """Removed for good with everything in it (the operators' web app). Its published files go
    and the all-systems file is rebuilt without it once this commits."""
    request_unpublish(system.pk)
    TrailSystem.objects.filter(pk=system.pk).delete()


# Trails


def _closed_activities(activities: Sequence[Mapping]) -> list[dict]:
    return [{**activity, "status": ActivityStatus.CLOSED} for activity in activities]


class MapRowFields(TypedDict, total=False):
    """The fields trails and points share, as the services take them by keyword."""

    trail_system: TrailSystem  # a change only: the row moves to another system
    name: str
    description: str
    status: str
    hidden: bool


class TrailFields(MapRowFields, total=False):
    """A trail's own fields (the model's names)."""

    difficulty: str
    type: str
    line_style: str
    one_way: bool
    one_way_reversed: bool
    order: int
    categories: list[str]
    geometry: dict


class TrailChanges(TrailFields, total=False):
    # Statuses of activities already on the trail ({value, status}): the API's rule.
    activities: list[dict]


@transaction.atomic
def create_trail(
    *,
    system: TrailSystem,
    actor: Actor,
    activity_list: Sequence[Mapping] = (),
    **fields: Unpack[TrailFields],
) -> Trail:
    """A new trail; it sorts to the top unless an order is given. `fields` holds the geometry;
    `activity_list` ({value, status, difficulty?, position?}) is added only by the web app."""
    _check_categories(fields)
    values = {key: value for key, value in fields.items() if key != "geometry"}
    trail = Trail(trail_system=system, created_by=actor.uid, updated_by=actor.uid, **values)
    try:
        trail.apply_geometry(fields["geometry"])
    except GeometryError as error:
        raise Invalid("invalid_geometry", str(error)) from None
    if "order" not in fields:
        trail.order = -Trail.objects.filter(trail_system=system).count()
    trail.save(force_insert=True)
    if trail.status == TrailStatus.CLOSED:
        activity_list = _closed_activities(activity_list)
    TrailActivity.objects.bulk_create(
        TrailActivity(trail=trail, **{"position": index, **activity})
        for index, activity in enumerate(activity_list)
    )
    request_compile(system, "trail created")
    request_elevations_on_commit(trail.pk)
    return trail


def _check_categories(fields: Mapping) -> None:
    """The count limit on every write path (the API's serializer checks it first), and one
    line of text for the name and each category."""
    problem = categories_problem(fields.get("categories") or ())
    if problem:
        raise Invalid("invalid_field", problem, field="categories")
    check_single_line(fields, "name", "categories")


@transaction.atomic
def change_trail(
    *,
    trail: Trail,
    actor: Actor,
    activity_list: Sequence[Mapping] | None = None,
    reopen_activities: bool = False,
    **changes: Unpack[TrailChanges],
) -> Trail:
    """Change the trail's fields given. `activities` changes activities already on the trail
    (the API's rule: they are added in the web app); `activity_list` replaces the whole list
    (the web app's). A new geometry recomputes what derives from it and the elevations;
    Closed closes every activity. With `reopen_activities` (the web app's rule, issue 33)
    Open or Caution also sets the trail's Closed activities to that status. Returns the
    changed trail with its shown columns as written and `trail`'s system (or the new one),
    activities not read: the API answers from it without reading the row again."""
    _check_categories(changes)
    activity_changes = changes.pop("activities", [])
    locked = by_key(
        Trail.objects.select_for_update()
        .filter(pk=trail.pk)
        .only(*SHOWN_TRAIL_FIELDS)  # never the heavy geometry
    )
    if locked is None:
        raise NotFound("trail_not_found", f"No trail {trail.pk!r}.")
    if "geometry" in changes:
        try:
            locked.apply_geometry(changes["geometry"])
        except GeometryError as error:
            raise Invalid("invalid_geometry", str(error)) from None
        changes |= {name: getattr(locked, name) for name in ("geometry", "distance", "lat", "lng")}
    if activity_list is not None:
        _replace_activities(locked, activity_list, actor)
    _change_activities(locked, activity_changes, actor)
    if "status" in changes or any("status" in change for change in activity_changes):
        changes |= confirmation_stamp(actor)
    if "status" in changes:
        history.save_changes(
            [history.trail_change(locked, actor, history.STATUS, locked.status, changes["status"])],
            _cascade_status([locked], changes["status"], actor, reopen=reopen_activities),
        )
    if "trail_system" in changes and changes["trail_system"].pk != locked.trail_system_id:
        request_compile(locked.trail_system_id, "trail moved to another system")
    stamp = write_fields(Trail, trail.pk, changes, actor.uid)
    request_compile(changes.get("trail_system", locked.trail_system_id), "trail changed")
    if "geometry" in changes:
        request_elevations_on_commit(trail.pk)
    for name, value in (changes | stamp).items():
        setattr(locked, name, value)
    if "trail_system" not in changes:
        locked.trail_system = trail.trail_system
    return locked


def confirmation_stamp(actor: Actor) -> dict:
    """A person who sets a status has just confirmed it; a schedule's clock has not."""
    if actor.via == Via.SCHEDULE:
        return {}
    return {"status_confirmed_on": timezone.now(), "status_confirmed_by": actor.uid}


@transaction.atomic
def confirm_trail_statuses(
    *, system: TrailSystem, trail_ids: Sequence[str] | None, actor: Actor
) -> int:
    """ "Checked this morning": the current status of the given live trails of the system (all
    of them when `trail_ids` is None) is confirmed now by the actor, in one UPDATE. Nothing is
    published: the public pages read confirmations from their own route. Returns the count."""
    trails = Trail.objects.filter(trail_system=system)
    if trail_ids is not None:
        found = set(trails.filter(pk__in=trail_ids).values_list("pk", flat=True))
        missing = set(trail_ids) - found
        if missing:
            raise NotFound("trail_not_found", f"Not trails of this system: {some_of(missing)}.")
        trails = trails.filter(pk__in=found)
    return trails.update(status_confirmed_on=timezone.now(), status_confirmed_by=actor.uid)


def _activity_history(trail: Trail, actor: Actor, value: str, old: Mapping, new: Mapping) -> list:
    return [
        history.trail_change(trail, actor, name, old.get(name), new.get(name), activity=value)
        for name in (history.STATUS, history.DIFFICULTY)
        if name in new or name in old
    ]


def _change_activities(trail: Trail, activity_changes: Sequence[Mapping], actor: Actor) -> None:
    if not activity_changes:
        return
    on_trail = {a.value: a for a in TrailActivity.objects.filter(trail=trail)}
    unknown = [change["value"] for change in activity_changes if change["value"] not in on_trail]
    if unknown:
        raise Invalid(
            "unknown_activity",
            f"Not on this trail: {some_of(unknown)}; activities are added in the web app.",
        )
    records = []
    for change in activity_changes:
        fields = {key: value for key, value in change.items() if key != "value"}
        if not fields:
            continue
        current = on_trail[change["value"]]
        old = {name: getattr(current, name) for name in fields}
        records += _activity_history(trail, actor, current.value, old, fields)
        TrailActivity.objects.filter(pk=current.pk).update(**fields)
    history.save_changes(records)


def _replace_activities(trail: Trail, activities: Sequence[Mapping], actor: Actor) -> None:
    """The web app's list: add the new, change the kept, remove the missing (history for each)."""
    on_trail = {a.value: a for a in TrailActivity.objects.filter(trail=trail)}
    wanted = {activity["value"]: activity for activity in activities}
    if len(wanted) != len(activities):
        raise Invalid("invalid_field", "each activity at most once per trail.", field="activities")
    records = []
    for value, current in on_trail.items():
        if value not in wanted:
            old = {name: getattr(current, name) for name in (history.STATUS, history.DIFFICULTY)}
            records += _activity_history(trail, actor, value, old, {"status": None})
    TrailActivity.objects.filter(trail=trail).exclude(value__in=wanted).delete()
    for index, (value, activity) in enumerate(wanted.items()):
        fields = {"position": index, **{k: v for k, v in activity.items() if k != "value"}}
        current = on_trail.get(value)
        if current is None:
            TrailActivity.objects.create(trail=trail, value=value, **fields)
            records += _activity_history(trail, actor, value, {"status": None}, fields)
            continue
        old = {name: getattr(current, name) for name in fields}
        if old != fields:
            TrailActivity.objects.filter(pk=current.pk).update(**fields)
            records += _activity_history(trail, actor, value, old, fields)
    history.save_changes(records)


def _cascade_status(
    trails: Sequence[Trail], status: str, actor: Actor, *, reopen: bool
) -> list[StatusChange]:
    """Closed closes every activity of the trails (spec section 3); with `reopen`, Open or
    Caution sets their Closed activities to it (the web app's "open means open"). Returns the
    changes' records, for the caller to save after its trails' own (one announcement)."""
    if status == TrailStatus.CLOSED:
        to_change = TrailActivity.objects.filter(trail__in=trails).exclude(status=status)
    elif reopen and status in (TrailStatus.OPEN, TrailStatus.CAUTION):
        to_change = TrailActivity.objects.filter(trail__in=trails, status=ActivityStatus.CLOSED)
    else:
        return []
    to_change = list(to_change)
    by_id = {trail.pk: trail for trail in trails}
    TrailActivity.objects.filter(pk__in=[a.pk for a in to_change]).update(status=status)
    return [
        history.trail_change(
            by_id[activity.trail_id],
            actor,
            history.STATUS,
            activity.status,
            status,
            activity=activity.value,
        )
        for activity in to_change
    ]


@transaction.atomic
def set_trails_status(
    *,
    system: TrailSystem,
    status: str,
    trail_ids: Sequence[str] | None,
    actor: Actor,
    reopen_activities: bool = False,
) -> list[dict]:
    """Bulk status: every id must be a live trail of the system, else nothing changes. The
    history names the path `bulk` (with the caller's uid and key). Closed closes every
    activity; with `reopen_activities`, Open or Caution sets the Closed ones to it."""
    trails = Trail.objects.select_for_update().filter(trail_system=system)
    if trail_ids is not None:
        trails = trails.filter(pk__in=trail_ids)
    found = list(trails.order_by("order", "created_on").only("id", "name", "status"))
    missing = set(trail_ids or ()) - {trail.pk for trail in found}
    if missing:
        raise NotFound("trail_not_found", f"Not trails of this system: {some_of(missing)}.")
    bulk = actor.by_path(Via.BULK)
    history.save_changes(
        [
            history.trail_change(trail, bulk, history.STATUS, trail.status, status)
            for trail in found
        ],
        _cascade_status(found, status, bulk, reopen=reopen_activities),
    )
    Trail.objects.filter(pk__in=[trail.pk for trail in found]).update(
        status=status, updated_on=timezone.now(), updated_by=actor.uid, **confirmation_stamp(actor)
    )
    request_compile(system, "trail statuses changed")
    return [{"id": trail.pk, "name": trail.name} for trail in found]


# Points

POINT_HISTORY_FIELDS = {"status": history.STATUS, "wait_time": history.WAIT_TIME}


class PointFields(MapRowFields, total=False):
    """A point's own fields (the model's names)."""

    marker_class: str
    wait_time: int | None
    web_cam_url: str
    dining_options: bool | dict | None
    lat: float
    lng: float


@transaction.atomic
def create_point(*, system: TrailSystem, actor: Actor, **fields: Unpack[PointFields]) -> Point:
    check_single_line(fields, "name")
    check_links(fields, "web_cam_url")
    point = Point.objects.create(
        trail_system=system, created_by=actor.uid, updated_by=actor.uid, **fields
    )
    request_compile(system, "point created")
    return point


@transaction.atomic
def change_point(*, point: Point, actor: Actor, **changes: Unpack[PointFields]) -> None:
    check_single_line(changes, "name")
    check_links(changes, "web_cam_url")
    locked = Point.objects.select_for_update().filter(pk=point.pk).first()
    if locked is None:
        raise NotFound("point_not_found", f"No point {point.pk!r}.")
    history.save_changes(
        history.point_change(locked, actor, field, getattr(locked, name), changes[name])
        for name, field in POINT_HISTORY_FIELDS.items()
        if name in changes
    )
    if "trail_system" in changes and changes["trail_system"].pk != locked.trail_system_id:
        request_compile(locked.trail_system_id, "point moved to another system")
    write_fields(Point, point.pk, changes, actor.uid)
    request_compile(changes.get("trail_system", locked.trail_system_id), "point changed")


# Members


@transaction.atomic
def set_member(*, system: TrailSystem, user_id: int, role: str, actor: Actor) -> Membership:
    """Give a user a role on the system (added, or their role changed)."""
    membership, _ = Membership.objects.update_or_create(
        trail_system=system, user_id=user_id, defaults={"role": role}
    )
    return membership


@transaction.atomic
def remove_member(*, system: TrailSystem, user_id: int, actor: Actor) -> None:
    Membership.objects.filter(trail_system=system, user_id=user_id).delete()
