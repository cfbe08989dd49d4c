"""Writes of updates: each type's required fields, expiry, related trails, notification."""

from collections.abc import Iterable
from datetime import date, datetime, timedelta
from typing import TypedDict, Unpack

from django.db import transaction
from django.dispatch import Signal
from django.utils import timezone

from core import events
from core.actors import Actor
from core.compiles import request_compile
from core.dates import iso_ms
from core.errors import Invalid, NotFound
from core.limits import some_of
from core.links import check_links
from core.names import camel
from core.text import without_bidi_controls
from trails.models import Trail, TrailSystem
from trails.services import write_fields
from updates.enums import NoticeSeverity, UpdateType
from updates.models import Update
from updates.tasks import notify_subscribers_on_commit
from updates.types import TYPE_FIELDS, UPDATE_TYPES

# Sent with system_id inside the transaction of every write of a notice or other update: the
# CAP warnings (cap.tasks) hear of them here, and of no other write a compile follows.
update_changed = Signal()

DEFAULT_LIFETIME = timedelta(hours=24)


def _expiry(data: dict, now: datetime) -> datetime | None:
    """The expiry the body asks for, counted from now; None when it names none."""
    if "expires_in_hours" in data:
        return now + timedelta(hours=data["expires_in_hours"])
    if "expiration_date" in data:
        if data["expiration_date"] <= now:
            raise Invalid("invalid_field", "must be in the future.", field="expiration_date")
        return data["expiration_date"]
    return None


def _trails(system: TrailSystem, kind: str, data: dict) -> tuple[list[Trail], bool] | None:
    """(trails, all_trails) the body relates the update to; None when it names none."""
    if kind == UpdateType.SNOW_REPORT or ("trail_ids" not in data and "all_trails" not in data):
        return None
    if data.get("all_trails"):
        return [], True
    ids = set(data.get("trail_ids", ()))
    trails = list(Trail.objects.filter(trail_system=system, pk__in=ids).only("id"))
    missing = ids - {trail.pk for trail in trails}
    if missing:
        raise NotFound("trail_not_found", f"Not trails of this system: {some_of(missing)}.")
    if kind == UpdateType.SURFACE_CONDITIONS and not trails:
        raise Invalid("missing_field", "surface conditions need trails.", field="trail_ids")
    return trails, False


def _own_fields(kind: str, data: dict) -> dict:
    fields = {name: data[name] for name in TYPE_FIELDS[kind] if name in data}
    check_links(fields, "link_url")
    if isinstance(fields.get("description"), str):
        fields["description"] = without_bidi_controls(fields["description"])
    return fields


def _require(fields: dict, name: str, message: str) -> None:
    if name not in fields:
        raise Invalid("missing_field", message, field=name)


def _touch(system: TrailSystem, trails: list[Trail], all_trails: bool, now: datetime) -> None:
    """Related trails show the update in their updatedOn."""
    related = Trail.objects.filter(trail_system=system)
    if not all_trails:
        related = related.filter(pk__in=[trail.pk for trail in trails])
    related.update(updated_on=now)


class TypeFields(TypedDict, total=False):
    """The fields of the update types (TYPE_FIELDS), as the services take them by keyword;
    those of another type than the update's are ignored."""

    description: str
    severity: str
    link_url: str
    conditions: list[str]
    base_depth: float | None
    twenty_four_hours: float | None
    fourty_eight_hours: float | None
    seven_days: float | None
    season_total: float | None
    last_snow_amount: float | None
    upper_elevation_depth: float | None
    last_snow_date: date | None
    last_snow_making_date: date | None
    last_snow_time: str | None


class UpdateFields(TypeFields, total=False):
    """An update's fields: its type's own, its expiry (a date, or hours from now), its
    trails, and whether subscribers are told."""

    type: str  # on creation only
    expiration_date: datetime
    expires_in_hours: float
    notify: bool
    trail_ids: list[str]
    all_trails: bool


def create_update(
    *,
    system: TrailSystem,
    actor: Actor,
    source: str = Update.Source.API,
    **fields: Unpack[UpdateFields],
) -> Update:
    """A new update of its type's fields; related trails show it in their updatedOn; with
    notify, subscribers get it once the transaction commits."""
    data = fields
    kind = data["type"]
    now = timezone.now()
    fields = _own_fields(kind, data)
    if kind == UpdateType.NOTICE:
        _require(fields, "description", "a notice needs its text.")
        fields.setdefault("severity", NoticeSeverity.INFO)
    if kind == UpdateType.SURFACE_CONDITIONS:
        _require(fields, "conditions", "at least one surface condition.")
    related = _trails(system, kind, data)
    if kind == UpdateType.SURFACE_CONDITIONS and related is None:
        raise Invalid("missing_field", "name the trails, or all trails.", field="trail_ids")
    trails, all_trails = related or ([], False)
    with transaction.atomic():
        update = Update.objects.create(
            trail_system=system,
            type=kind,
            expiration_date=_expiry(data, now) or now + DEFAULT_LIFETIME,
            notify=data.get("notify", False),
            all_trails=all_trails,
            source=source,
            created_by=actor.uid,
            updated_by=actor.uid,
            **fields,
        )
        update.trails.set(trails)
        _touch(system, trails, all_trails, now)
        _request_compile(system_id=system.pk, reason="update created")
        if update.notify:
            notify_subscribers_on_commit(update.pk)
        events.announce_one(
            system_id=system.pk, type=events.UPDATE_CREATED, data=lambda: update_data(update)
        )
    return update


def update_data(update: Update) -> dict:
    """An update as the event `update.created` shows it: the fields of its type, named and
    written as the API shows them, and the trails it is related to."""
    trails = Trail.objects.filter(trail_system_id=update.trail_system_id)
    if not update.all_trails:
        trails = trails.filter(updates=update)
    own = {
        camel(name): iso_ms(value) if isinstance(value, datetime) else value
        for name in TYPE_FIELDS.get(update.type, ())
        for value in [getattr(update, name)]
    }
    return {
        "trailSystemId": update.trail_system_id,
        "id": update.pk,
        "type": update.type,
        **own,
        "trailIds": sorted(trails.values_list("pk", flat=True)),
        "allTrails": update.all_trails,
        "expirationDate": iso_ms(update.expiration_date),
        "notify": update.notify,
        "source": update.source,
        "createdOn": iso_ms(update.created_on),
    }


@transaction.atomic
def import_update(
    *,
    system: TrailSystem,
    update_id: str,
    kind: str,
    trail_ids: Iterable[str],
    expiration_date: datetime,
    updated_on: datetime,
    actor: Actor,
    **fields: Unpack[TypeFields],
) -> Update:
    """An update copied from another deployment: its id, expiry and time are kept, so the
    published order and the ids embeds may hold stay the same; an import never notifies."""
    update = Update.objects.create(
        id=update_id,
        trail_system=system,
        type=kind,
        expiration_date=expiration_date,
        source=Update.Source.IMPORT,
        created_on=updated_on,
        updated_on=updated_on,
        created_by=actor.uid,
        updated_by=actor.uid,
        **fields,
    )
    update.trails.set(list(trail_ids))
    _request_compile(system_id=system.pk, reason="update imported")
    return update


def change_update(*, update: Update, actor: Actor, **changes: Unpack[UpdateFields]) -> None:
    """PATCH /updates/:id: a new expiry counts from now; notify never sends from here."""
    data = changes
    if update.type not in UPDATE_TYPES:
        raise Invalid("unknown_type", f"Updates of type {update.type!r} cannot be edited.")
    now = timezone.now()
    columns = _own_fields(update.type, data)
    if "notify" in data:
        columns["notify"] = data["notify"]
    expiry = _expiry(data, now)
    if expiry is not None:
        columns["expiration_date"] = expiry
    related = _trails(update.trail_system, update.type, data)
    if not columns and related is None:
        raise Invalid("no_changes", f"The body holds no editable field of a {update.type}.")
    with transaction.atomic():
        if related is not None:
            trails, columns["all_trails"] = related
            update.trails.set(trails)
        write_fields(Update, update.pk, columns, actor.uid)
        _request_compile(system_id=update.trail_system_id, reason="update changed")


def delete_update(*, update: Update, actor: Actor) -> None:
    """Removed at once and for good; the actor is not kept, as nothing of the update remains."""
    with transaction.atomic():
        _, deleted = Update.objects.filter(pk=update.pk).delete()
        _request_compile(system_id=update.trail_system_id, reason="update deleted")
        if not deleted.get(Update._meta.label):
            return  # someone else deleted it meanwhile, and announced it
        events.announce_one(
            system_id=update.trail_system_id,
            type=events.UPDATE_DELETED,
            data=lambda: {
                "trailSystemId": update.trail_system_id,
                "id": update.pk,
                "type": update.type,
            },
        )


def _request_compile(*, system_id: str, reason: str) -> None:
    """A compile of the system, and word to the CAP warnings, once this transaction commits."""
    request_compile(system_id, reason)
    update_changed.send(sender=None, system_id=system_id)
