"""The grooming log of a period: per machine and per day, each session's hours, the distance
driven and the distance groomed on each trail, with totals, as the clubs' funders ask for it.

A session is a pass: a tracker's or the web recorder's run (the machine is the tracker's name)
or an uploaded track (the machine is the operator who uploaded it). It belongs to the day, in
the system's zone, on which it started. The distance groomed on a trail is the trail's length
times the share of it the pass covered (the coverage the grooming already measures), so it
never exceeds the trail's length for a pass. The figures of a pass are kept with it
(grooming.driving), so a season's log reads a row per pass and per trail, never a position.

An approved period (GroomingLogApproval) answers the sessions as they were approved; a pass
saved into it later is listed apart (`afterApproval`) and counts in no total."""

from collections import defaultdict
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, tzinfo

from django.db.models import Q
from django.db.models.functions import Coalesce
from django.utils import timezone

from apikeys.models import User
from core.dates import iso_ms
from core.errors import Invalid
from grooming.models import GroomedTrail, GroomingLogApproval, GroomingPass
from grooming.sessions import session_driving
from trails.models import TrailSystem
from trails.timezones import zone_name, zone_of

DEFAULT_DAYS = 7
MAX_DAYS = 400
TRACKER = "tracker"
UPLOAD = "upload"


@dataclass(frozen=True)
class Period:
    """Whole days in the system's zone, both ends included."""

    first_day: date
    last_day: date

    def bounds(self, zone: tzinfo) -> tuple[datetime, datetime]:
        """The period's start and end as instants (the end excluded)."""
        start = datetime.combine(self.first_day, time.min, tzinfo=zone)
        return start, datetime.combine(self.last_day + timedelta(days=1), time.min, tzinfo=zone)

    def overlaps(self, other: "Period") -> bool:
        return self.first_day <= other.last_day and other.first_day <= self.last_day

    def holds(self, day: date) -> bool:
        return self.first_day <= day <= self.last_day


def _day(text: str | None, name: str) -> date | None:
    if text is None:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise Invalid("invalid_date", f"{text!r} is not a date (YYYY-MM-DD).", field=name) from None


def period(
    *, system: TrailSystem, first: str | None, last: str | None, now: datetime | None = None
) -> Period:
    """The period asked for: `from` and `to` as YYYY-MM-DD, by default the week ending today
    in the system's zone (one end given: the week from or to it)."""
    first_day, last_day = _day(first, "from"), _day(last, "to")
    week = timedelta(days=DEFAULT_DAYS - 1)
    if first_day is None and last_day is None:
        last_day = (now or timezone.now()).astimezone(zone_of(system)).date()
    first_day = first_day or last_day - week
    last_day = last_day or first_day + week
    if first_day > last_day:
        raise Invalid("invalid_field", "must not be after `to`.", field="from")
    if (last_day - first_day).days + 1 > MAX_DAYS:
        raise Invalid("invalid_field", f"a period is at most {MAX_DAYS} days long.", field="to")
    return Period(first_day, last_day)


def _hours(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds / 3600, 2)


def _machines(passes: list[GroomingPass]) -> dict[str, tuple[str, str, str]]:
    """Pass id -> (machine id, machine name, source): the tracker for a session, the
    operator who uploaded for an upload (their address, else their uid)."""
    uploaders = {
        user.uid: str(user)
        for user in User.objects.filter(
            uid__in={p.uid for p in passes if p.tracker_id is None}
        ).only("uid", "email")
    }
    return {
        p.pk: (p.tracker_id, p.tracker_name, TRACKER)
        if p.tracker_id
        else (f"upload:{p.uid}", uploaders.get(p.uid, p.uid), UPLOAD)
        for p in passes
    }


def _live_figures(grooming_pass: GroomingPass) -> dict:
    """A running session's figures so far, from its positions."""
    figures = session_driving(grooming_pass.session)
    return {
        "started_at": figures.started_at,
        "ended_at": figures.ended_at,
        "active_seconds": figures.active_seconds,
        "pauses": figures.pauses,
        "paused_seconds": figures.paused_seconds,
        "driven_meters": figures.driven_meters,
    }


def _session_documents(system: TrailSystem, period: Period) -> list[dict]:
    """Every pass that started in the period, as the log's sessions, oldest first. A fixed
    number of queries, and one more per session still running."""
    zone = zone_of(system)
    start, end = period.bounds(zone)
    passes = list(
        GroomingPass.objects.filter(trail_system=system)
        .annotate(
            began=Coalesce("started_at", "session__started_at", "groomed_at"),
        )
        .filter(began__gte=start, began__lt=end)
        .select_related("session__tracker")
        .defer("track")
        .order_by("began", "created_on", "id")
    )
    for p in passes:
        session = getattr(p, "session", None)
        p.tracker_id = session.tracker_id if session else None
        p.tracker_name = session.tracker.name if session else ""
    machines = _machines(passes)
    trails = defaultdict(list)
    for pass_id, coverage, trail_id, name, kilometres in (
        GroomedTrail.objects.filter(grooming_pass__in=passes)
        .order_by("trail__name", "trail_id")
        .values_list("grooming_pass_id", "coverage", "trail_id", "trail__name", "trail__distance")
    ):
        trails[pass_id].append((trail_id, name, coverage, kilometres * 1000))
    documents = []
    for p in passes:
        running = p.driven_meters is None and getattr(p, "session", None) is not None
        figures = (
            _live_figures(p)
            if running
            else {
                "started_at": p.started_at,
                "ended_at": p.groomed_at if p.started_at else None,
                "active_seconds": p.active_seconds,
                "pauses": p.pauses,
                "paused_seconds": p.paused_seconds,
                "driven_meters": p.driven_meters or 0.0,
            }
        )
        machine_id, machine, source = machines[p.pk]
        session_trails = [
            {
                "trailId": trail_id,
                "name": name,
                "passes": 1,
                "groomedMeters": round(coverage * metres, 1),
                "lengthMeters": round(metres, 1),
                "condition": p.condition,
            }
            for trail_id, name, coverage, metres in trails[p.pk]
        ]
        documents.append(
            {
                "id": p.pk,
                "machine": machine,
                "machineId": machine_id,
                "source": source,
                "day": p.began.astimezone(zone).date().isoformat(),
                "startedAt": iso_ms(figures["started_at"]),
                "endedAt": iso_ms(figures["ended_at"]),
                "hours": _hours(figures["active_seconds"]),
                "pausesLeftOut": figures["pauses"],
                "pausedHours": _hours(figures["paused_seconds"]),
                "drivenMeters": round(figures["driven_meters"], 1),
                "groomedMeters": round(sum(t["groomedMeters"] for t in session_trails), 1),
                "condition": p.condition,
                "running": running,
                "trails": session_trails,
            }
        )
    return documents


def _totals(sessions: list[dict]) -> dict:
    """The period's totals, and the same per machine and per trail."""

    def total(rows: list[dict]) -> dict:
        return {
            "sessions": len(rows),
            "hours": round(sum(row["hours"] or 0.0 for row in rows), 2),
            "drivenMeters": round(sum(row["drivenMeters"] for row in rows), 1),
            "groomedMeters": round(sum(row["groomedMeters"] for row in rows), 1),
        }

    by_machine: dict[str, list[dict]] = defaultdict(list)
    by_trail: dict[str, list[dict]] = defaultdict(list)
    for session in sessions:
        by_machine[session["machineId"]].append(session)
        for trail in session["trails"]:
            by_trail[trail["trailId"]].append(trail)
    return {
        **total(sessions),
        "machines": [
            {"machineId": machine_id, "machine": rows[0]["machine"], **total(rows)}
            for machine_id, rows in sorted(by_machine.items(), key=lambda i: i[1][0]["machine"])
        ],
        "trails": [
            {
                "trailId": trail_id,
                "name": rows[0]["name"],
                "lengthMeters": rows[0]["lengthMeters"],
                "passes": sum(row["passes"] for row in rows),
                "groomedMeters": round(sum(row["groomedMeters"] for row in rows), 1),
            }
            for trail_id, rows in sorted(by_trail.items(), key=lambda i: i[1][0]["name"])
        ],
    }


def approval_document(approval: GroomingLogApproval) -> dict:
    return {
        "id": approval.pk,
        "from": approval.first_day.isoformat(),
        "to": approval.last_day.isoformat(),
        "approvedBy": approval.approved_by,
        "approvedAt": iso_ms(approval.approved_on),
        "reopenedBy": approval.reopened_by or None,
        "reopenedAt": iso_ms(approval.reopened_on),
        "reopenReason": approval.reopen_reason or None,
    }


def approvals_overlapping(system: TrailSystem, period: Period) -> list[GroomingLogApproval]:
    """Every approval of the system touching the period, reopened ones too, newest first."""
    return list(
        GroomingLogApproval.objects.filter(
            trail_system=system, first_day__lte=period.last_day, last_day__gte=period.first_day
        ).order_by("-approved_on", "-id")
    )


def grooming_log(*, system: TrailSystem, period: Period) -> dict:
    """The log of the period: its sessions, their totals, and the approvals in force over
    it. A day under an approval answers the sessions as approved; a pass saved there since
    is `afterApproval` and in no total."""
    history = approvals_overlapping(system, period)
    in_force = [approval for approval in history if approval.reopened_on is None]
    approved_days = [Period(a.first_day, a.last_day) for a in in_force]
    approved_ids = {
        session["id"] for approval in in_force for session in approval.document["sessions"]
    }
    sessions = [
        session
        for approval in in_force
        for session in approval.document["sessions"]
        if period.holds(date.fromisoformat(session["day"]))
    ]
    late = []
    for session in _session_documents(system, period):
        day = date.fromisoformat(session["day"])
        if not any(approved.holds(day) for approved in approved_days):
            sessions.append({**session, "afterApproval": False})
        elif session["id"] not in approved_ids:
            late.append({**session, "afterApproval": True})
    sessions.sort(key=lambda s: (s["day"], s["startedAt"] or "", s["id"]))
    return {
        "trailSystemId": system.pk,
        "from": period.first_day.isoformat(),
        "to": period.last_day.isoformat(),
        "timeZone": zone_name(system),
        "sessions": sessions + late,
        "totals": _totals(sessions),
        "approval": approval_document(in_force[0]) if in_force else None,
        "approvals": [approval_document(approval) for approval in history],
    }


def approvable_sessions(*, system: TrailSystem, period: Period) -> list[dict]:
    """The sessions an approval of the period fixes: every pass that started in it."""
    return [{**s, "afterApproval": False} for s in _session_documents(system, period)]


def open_approvals(system: TrailSystem, period: Period) -> Q:
    """The approvals in force over any day of the period."""
    return Q(
        trail_system=system,
        reopened_on__isnull=True,
        first_day__lte=period.last_day,
        last_day__gte=period.first_day,
    )
