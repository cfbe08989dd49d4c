"""Approving a period's grooming log, and reopening it: the log's only writes."""

from django.db import transaction
from django.utils import timezone

from core.actors import Actor
from core.errors import Invalid
from grooming.log import Period, approvable_sessions, open_approvals
from grooming.models import GroomingLogApproval
from trails.models import TrailSystem

REASON_MAX = 500


@transaction.atomic
def approve_grooming_log(
    *, system: TrailSystem, period: Period, actor: Actor
) -> GroomingLogApproval:
    """Fix the period's log as it stands: its sessions are kept with the approval, so a later
    upload into the period changes none of its figures. A period touching one already approved
    (and not reopened) is refused, and so is one with a session still running."""
    TrailSystem.objects.select_for_update().filter(pk=system.pk).first()
    if GroomingLogApproval.objects.filter(open_approvals(system, period)).exists():
        raise Invalid(
            "invalid_field",
            "part of this period is approved already: reopen that approval first.",
            field="from",
        )
    sessions = approvable_sessions(system=system, period=period)
    running = [session["machine"] for session in sessions if session["running"]]
    if running:
        raise Invalid(
            "invalid_field",
            f"{running[0]} is still grooming in this period: approve it once the session has "
            "ended (15 minutes after its last position).",
            field="to",
        )
    return GroomingLogApproval.objects.create(
        trail_system=system,
        first_day=period.first_day,
        last_day=period.last_day,
        approved_by=actor.uid,
        document={"sessions": sessions},
    )


@transaction.atomic
def reopen_grooming_log(
    *, approval: GroomingLogApproval, actor: Actor, reason: str
) -> GroomingLogApproval:
    """Open an approved period again; the approval stays, with who reopened it and why. A
    second reopening changes nothing (a retried request)."""
    reason = (reason or "").strip()
    if not reason:
        raise Invalid("missing_field", "say why the period is reopened.", field="reason")
    if len(reason) > REASON_MAX:
        raise Invalid("invalid_field", f"at most {REASON_MAX} characters.", field="reason")
    locked = GroomingLogApproval.objects.select_for_update().get(pk=approval.pk)
    if locked.reopened_on is not None:  # reopened already: as it is, with its first reason
        return locked
    locked.reopened_by = actor.uid
    locked.reopened_on = timezone.now()
    locked.reopen_reason = reason
    locked.save(update_fields=["reopened_by", "reopened_on", "reopen_reason"])
    return locked
