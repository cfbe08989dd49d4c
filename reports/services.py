"""Writes of rider reports: filing one from the public map (bounded per system and day) and
triaging it (resolved, dismissed, a note). Every side effect is here: the photo in its
storage, the grouping, the `report.created` event, the answer to the reporters."""

import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from core import events
from core.actors import Actor, Via
from core.dates import iso_ms
from core.errors import Invalid
from core.queueing import queue_on_commit
from core.text import without_bidi_controls
from reports import photos, storage
from reports.models import Category, Report, ReportAlert, State
from reports.nearest import nearest_trail
from reports.tasks import alert_about_report, answer_reporters
from trails.enums import TrailStatus
from trails.geodesy import around, metres_between
from trails.models import TrailSystem
from trails.selectors import trails_of_system
from trails.services import change_trail
from updates.subscribers import normalize_email

DESCRIPTION_MAX = 1000  # characters: "a short description"
NOTE_MAX = 2000
# Farther than this from every trail of the system (or from its location when it has no
# trails) a report is not about this system.
FARTHEST_KM = 3.0
GROUP_METRES = 100
GROUP_HOURS = 24
EMAIL_MAX = 254


class ReportsPaused(Exception):
    """The system has received its reportsPerDay today (UTC)."""


@dataclass(frozen=True)
class Filed:
    report: Report
    group: Report  # the report itself, or the open report it joined


def _number(value: str, name: str, limit: float) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise Invalid("invalid_field", "a number is needed.", field=name) from None
    if not math.isfinite(number) or not -limit <= number <= limit:
        raise Invalid("invalid_field", f"must be from {-limit:g} to {limit:g}.", field=name)
    return number


def clean_fields(*, category: str, description: str, lat: str, lng: str, email: str) -> dict:
    """The form's fields as the report keeps them, or Invalid naming the first one at fault."""
    if category not in Category.values:
        raise Invalid("invalid_field", "choose what you saw.", field="category")
    description = description.strip()
    if len(description) > DESCRIPTION_MAX:
        raise Invalid(
            "invalid_field", f"at most {DESCRIPTION_MAX} characters, please.", field="description"
        )
    if "\x00" in description:
        raise Invalid("invalid_field", "must be text.", field="description")
    description = without_bidi_controls(description)
    if not lat or not lng:
        raise Invalid(
            "invalid_field", "where is it? Allow your position or tap the map.", field="lat"
        )
    try:
        # As a subscriber's: no `localhost`, no address literal, nothing the service's
        # answer could be sent to on its own or an internal host.
        email = normalize_email(email)
    except ValidationError:
        raise Invalid("invalid_field", "this is not an e-mail address.", field="email") from None
    if len(email) > EMAIL_MAX:
        raise Invalid("invalid_field", "too long.", field="email")
    return {
        "category": category,
        "description": description,
        "lat": _number(lat, "lat", 90),
        "lng": _number(lng, "lng", 180),
        "email": email,
    }


def start_of_utc_day(now: datetime) -> datetime:
    return now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)


def reports_left_today(system: TrailSystem, now: datetime) -> int:
    received = Report.objects.filter(
        trail_system=system, created_on__gte=start_of_utc_day(now)
    ).count()
    return max(system.reports_per_day - received, 0)


def _open_group(system: TrailSystem, category: str, lat: float, lng: float, now: datetime):
    """The open report of the category within GROUP_METRES and GROUP_HOURS, nearest first."""
    box = around(lat, lng, GROUP_METRES)
    candidates = Report.objects.select_for_update().filter(
        trail_system=system,
        duplicate_of__isnull=True,
        state=State.NEW,
        category=category,
        created_on__gte=now - timedelta(hours=GROUP_HOURS),
        lat__range=(box.south, box.north),
        lng__range=(box.west, box.east),
    )
    near = [(metres_between((lat, lng), (r.lat, r.lng)), r.created_on, r) for r in candidates]
    near = [entry for entry in near if entry[0] <= GROUP_METRES]
    return min(near, key=lambda entry: entry[:2])[2] if near else None


def _check_distance(system: TrailSystem, fields: Mapping, nearest) -> None:
    if nearest is not None:
        far = nearest.km > FARTHEST_KM
    elif system.lat is not None and system.lng is not None:
        far = metres_between((fields["lat"], fields["lng"]), (system.lat, system.lng)) > (
            FARTHEST_KM * 1000
        )
    else:
        far = False
    if far:
        raise Invalid(
            "too_far",
            f"this place is more than {FARTHEST_KM:g} km from the trails of {system.name}.",
            field="lat",
        )


def _created_event(report: Report, group: Report) -> dict:
    return {
        "id": report.pk,
        "trailSystemId": report.trail_system_id,
        "groupId": group.pk,
        "count": group.count,
        "category": report.category,
        "description": report.description,
        "lat": report.lat,
        "lng": report.lng,
        "trailId": report.trail_id,
        "trailDistanceKm": report.trail_distance_km,
        "hasPhoto": bool(report.photo),
        "createdOn": iso_ms(report.created_on),
    }


def file_report(
    *,
    system: TrailSystem,
    category: str,
    description: str,
    lat: str,
    lng: str,
    email: str,
    photo: bytes | None,
) -> Filed:
    """Keep a rider's report: Invalid for bad fields or a place far from the system,
    photos.PhotoRefused for a photo we do not keep, ReportsPaused past the system's
    reportsPerDay (checked before the photo is decoded, and again, exactly, in the
    transaction). The photo is decoded before the transaction (it takes a while), stored
    in it, and deleted again if the report is not kept."""
    fields = clean_fields(category=category, description=description, lat=lat, lng=lng, email=email)
    if reports_left_today(system, timezone.now()) <= 0:  # before a photo's decoding, too
        raise ReportsPaused
    clean = photos.clean_photo(photo) if photo else None
    nearest = nearest_trail(system, fields["lat"], fields["lng"])
    _check_distance(system, fields, nearest)
    stored = ""
    try:
        with transaction.atomic():
            # One report of a system at a time: the day's count is exact.
            TrailSystem.objects.select_for_update().filter(pk=system.pk).first()
            now = timezone.now()
            if reports_left_today(system, now) <= 0:
                raise ReportsPaused
            group = _open_group(system, fields["category"], fields["lat"], fields["lng"], now)
            alerting = ReportAlert.objects.filter(trail_system=system).exists()
            report = Report(
                trail_system=system,
                alert_pending=alerting,
                duplicate_of=group,
                trail_id=nearest.trail_id if nearest else None,
                trail_distance_km=nearest.km if nearest else None,
                created_on=now,
                last_reported_on=now,
                updated_on=now,
                **fields,
            )
            if clean is not None:
                stored = storage.save_photo(system.pk, report.pk, clean.body)
                report.photo = stored
            report.save(force_insert=True)
            if group is not None:
                group.count += 1
                group.last_reported_on = now
                group.save(update_fields=["count", "last_reported_on"])
            else:
                group = report
            events.announce_one(
                system_id=system.pk,
                type=events.REPORT_CREATED,
                data=lambda: _created_event(report, group),
            )
            if alerting:
                queue_on_commit(alert_about_report, report.pk)
    except BaseException:
        if stored:
            storage.delete_photo(stored)
        raise
    return Filed(report, group)


TRIAGE_STATES = (State.NEW, State.RESOLVED, State.DISMISSED)


@transaction.atomic
def change_report(
    *, report: Report, actor: Actor, state: str | None = None, note: str | None = None
) -> Report:
    """Triage a report (its group: what is decided of one report holds for every report of
    the same problem): its state, its note to the riders, or both (None: as it is). Resolving
    it answers each reporter who left an address, once."""
    state = report.state if state is None else state
    if state not in TRIAGE_STATES:
        raise Invalid("invalid_field", "must be new, resolved or dismissed.", field="state")
    note = report.note if note is None else without_bidi_controls(note)
    if len(note) > NOTE_MAX:
        raise Invalid("invalid_field", f"at most {NOTE_MAX} characters.", field="note")
    group = report.duplicate_of or report
    now = timezone.now()
    Report.objects.filter(pk=group.pk).update(
        state=state, note=note, updated_on=now, updated_by=actor.uid
    )
    Report.objects.filter(duplicate_of=group).update(
        state=state, updated_on=now, updated_by=actor.uid
    )
    if state == State.RESOLVED and group.state != State.RESOLVED:
        queue_on_commit(answer_reporters, group.pk)
    group.refresh_from_db()
    return group


@transaction.atomic
def close_reported_trail(*, report: Report, actor: Actor) -> str:
    """Close the trail nearest to the report (its group's), along the path `report`, so the
    trail's history says it came from a rider's report; returns the trail's name."""
    group = report.duplicate_of or report
    trail = trails_of_system(group.trail_system).filter(pk=group.trail_id).first()
    if trail is None:
        raise Invalid("trail_not_found", "No live trail is near this report any more.")
    change_trail(trail=trail, status=TrailStatus.CLOSED, actor=actor.by_path(Via.REPORT))
    return trail.name


@transaction.atomic
def set_report_alert(*, system: TrailSystem, user, on: bool) -> None:
    """An Administrator's choice of an e-mail per new report of the system."""
    if on:
        ReportAlert.objects.get_or_create(trail_system=system, user=user)
    else:
        ReportAlert.objects.filter(trail_system=system, user=user).delete()
