"""Issuing CAP messages: the one write of the CAP app."""

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
    it cancels) for one that ended, was removed or no longer qualifies. Run before each
    reading of the feed, so every state a reader was shown is recorded, and a later message
    can reference it; one issuer per system at a time, so none is issued twice."""
    now = now or timezone.now()
    sent = now.replace(microsecond=0)
    with transaction.atomic():
        transaction_lock(f"cap:{system.pk}")
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
        CapMessage.objects.bulk_create(issued)
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
