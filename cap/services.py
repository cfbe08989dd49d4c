"""Issuing CAP messages: the one write of the CAP app."""

import logging
from datetime import datetime

from django.db import transaction
from django.utils import timezone, translation

from cap import selectors
from cap.models import CapMessage, MsgType
from cap.sources import closure_info, notice_info
from core.links import absolute
from core.locks import transaction_lock
from trails.models import TrailSystem
from trails.timezones import zone_of

logger = logging.getLogger(__name__)


def current_warnings(system: TrailSystem, now: datetime) -> dict[str, dict]:
    """Thread -> the info block of each warning in effect or planned, in the system's
    language."""
    zone = zone_of(system)
    web = absolute("public-map", system.pk)
    shared = {"language": system.language, "zone": zone, "sender_name": system.name, "web": web}
    with translation.override(system.language):
        warnings = {
            f"closure-{closure.pk}": closure_info(closure, **shared)
            for closure in selectors.warning_closures(system.pk, now)
        }
        box = selectors.trails_box(system.pk)
        for notice in selectors.danger_notices(system.pk, now):
            info = notice_info(notice, **shared, box=box)
            if info is not None:
                warnings[f"notice-{notice.pk}"] = info
    return warnings


def issue_messages(*, system: TrailSystem, now: datetime | None = None) -> list[CapMessage]:
    """Bring the system's messages up to what is in effect, and return those issued: an
    Alert for a new warning, an Update for one whose info changed, a Cancel (with the info
    it cancels) for one that ended, was removed or no longer qualifies. Run once each change
    commits and on beat's sweep (cap.tasks), so `sent` is when the change happened. Only
    when something is to be issued is the system's lock taken and the comparison made again
    under it, so two runs at once never issue a message twice."""
    now = now or timezone.now()
    if not _to_issue(system, now):
        return []
    with transaction.atomic():
        transaction_lock(f"cap:{system.pk}")
        issued = _to_issue(system, now)
        CapMessage.objects.bulk_create(issued)
    return issued


def issue_system_messages(*, system_id: str) -> list[CapMessage]:
    """issue_messages for the system of this id, now; none for a system deleted since."""
    system = TrailSystem.objects.filter(pk=system_id).first()
    return [] if system is None else issue_messages(system=system)


def issue_due_messages(*, now: datetime | None = None) -> int:
    """issue_messages for every system with a warning or a message not cancelled: what
    changes with time alone (a notice expires, a planned closure starts, a closure's end
    comes) and what a failed issue left. Each system apart, one failing never holding up the
    others. Returns how many messages were issued."""
    now = now or timezone.now()
    issued = 0
    for system in selectors.systems_with_warnings(now):
        try:
            issued += len(issue_messages(system=system, now=now))
        except Exception:
            logger.exception("CAP messages of %s not issued", system.pk)
    return issued


def _to_issue(system: TrailSystem, now: datetime) -> list[CapMessage]:
    """The messages that bring the system's threads up to what is in effect at `now`."""
    sent = now.replace(microsecond=0)
    current = current_warnings(system, now)
    latest = selectors.latest_messages(system.pk, list(current))
    issued = []
    for thread, info in current.items():
        last = latest.get(thread)
        if last is None or last.msg_type == MsgType.CANCEL:
            msg_type = MsgType.ALERT
        elif last.info != info:
            msg_type = MsgType.UPDATE
        else:
            continue
        issued.append(_message(system, thread, last, msg_type, sent, info))
    for thread, last in latest.items():
        if thread not in current and last.msg_type != MsgType.CANCEL:
            issued.append(_message(system, thread, last, MsgType.CANCEL, sent, last.info))
    return issued


def _message(
    system: TrailSystem,
    thread: str,
    last: CapMessage | None,
    msg_type: MsgType,
    sent: datetime,
    info: dict,
) -> CapMessage:
    return CapMessage(
        trail_system=system,
        thread=thread,
        sequence=last.sequence + 1 if last else 1,
        msg_type=msg_type,
        sent=sent,
        info=info,
    )
