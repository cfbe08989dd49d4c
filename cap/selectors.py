"""Reads for CAP: what calls for a warning now (danger notices, closures of the CAP reasons,
the box of a system's trails) and the messages issued, as the feed and each alert's URL show
them."""

from datetime import datetime, timedelta

from django.db.models import Exists, Max, Min, OuterRef, Prefetch, Q, Subquery

from cap.models import CapMessage, MsgType
from closures.models import Closure
from closures.reasons import Reason
from closures.selectors import closures_of_system, shown
from trails.geodesy import Box
from trails.models import Trail, TrailSystem
from updates.enums import NoticeSeverity, UpdateType
from updates.models import Update

# The closures a CAP alert is issued for.
CAP_REASONS = (Reason.AVALANCHE_CONTROL, Reason.AVALANCHE_HAZARD, Reason.FIRE)
# A warning's Cancel stays in the feed this long, so a reader polling it hears of the end.
CANCEL_LISTED = timedelta(hours=24)


def danger_notices(system_id: str, now: datetime) -> list[Update]:
    """The system's unexpired notices of severity danger, with the trails they name."""
    return list(
        Update.objects.active(now)
        .filter(trail_system_id=system_id, type=UpdateType.NOTICE, severity=NoticeSeverity.DANGER)
        .prefetch_related(Prefetch("trails", Trail.objects.only("id", "name", "hidden")))
        .order_by("created_on", "pk")
    )


def warning_closures(system_id: str, now: datetime) -> list[Closure]:
    """The closures of the CAP reasons in effect and planned on shown trails, each with its
    stretch (`.stretch`) and whether it is in effect (`.active`)."""
    closures = [
        closure
        for closure in closures_of_system(system_id, now)
        if closure.reason in CAP_REASONS and not closure.trail.hidden
    ]
    return shown(closures, now)


def trails_box(system_id: str) -> Box | None:
    """The box around the system's shown trails (their stored boxes), None without one."""
    box = Trail.objects.filter(
        trail_system_id=system_id, hidden=False, south__isnull=False
    ).aggregate(west=Min("west"), south=Min("south"), east=Max("east"), north=Max("north"))
    return None if box["south"] is None else Box(**box)


def systems_with_warnings(now: datetime) -> list[TrailSystem]:
    """The systems with a danger notice unexpired, a closure of a CAP reason not ended, or
    a warning whose latest message is no Cancel: those whose messages time alone may change."""
    notices = Update.objects.active(now).filter(
        type=UpdateType.NOTICE, severity=NoticeSeverity.DANGER
    )
    closures = Closure.objects.filter(ended_on__isnull=True, reason__in=CAP_REASONS)
    threads = CapMessage.objects.filter(_latest()).exclude(msg_type=MsgType.CANCEL)
    return list(
        TrailSystem.objects.filter(
            Q(pk__in=notices.values("trail_system_id"))
            | Q(pk__in=closures.values("trail_system_id"))
            | Q(pk__in=threads.values("trail_system_id"))
        ).order_by("pk")
    )


def _latest() -> Q:
    later = CapMessage.objects.filter(
        trail_system=OuterRef("trail_system"),
        thread=OuterRef("thread"),
        sequence__gt=OuterRef("sequence"),
    )
    return ~Q(Exists(later))


def latest_messages(system_id: str, threads: list[str]) -> dict[str, CapMessage]:
    """Thread -> its latest message, for the threads not cancelled and those named."""
    latest = CapMessage.objects.filter(_latest(), trail_system_id=system_id).filter(
        ~Q(msg_type=MsgType.CANCEL) | Q(thread__in=threads)
    )
    return {message.thread: message for message in latest}


def listed_messages(system_id: str, now: datetime) -> list[CapMessage]:
    """The latest message of each warning in effect, and of each cancelled in the last
    CANCEL_LISTED, newest first; each with `first_sent`, when its thread's Alert was sent."""
    first = CapMessage.objects.filter(
        trail_system=OuterRef("trail_system"), thread=OuterRef("thread"), msg_type=MsgType.ALERT
    ).order_by("-sequence")
    return list(
        CapMessage.objects.filter(_latest(), trail_system_id=system_id)
        .filter(~Q(msg_type=MsgType.CANCEL) | Q(sent__gt=now - CANCEL_LISTED))
        .annotate(first_sent=Subquery(first.values("sent")[:1]))
        .order_by("-sent", "thread")
    )


def message_of(system_id: str, identifier: str) -> CapMessage | None:
    """The message of this CAP identifier (`<thread>-<sequence>`), if the system issued it."""
    thread, _, sequence = identifier.rpartition("-")
    if not (sequence.isascii() and sequence.isdigit()):
        return None
    return CapMessage.objects.filter(
        trail_system_id=system_id, thread=thread, sequence=int(sequence)
    ).first()


def earlier_messages(message: CapMessage) -> list[CapMessage]:
    """What an Update or a Cancel references: the messages of its thread since its Alert."""
    if message.msg_type == MsgType.ALERT:
        return []
    earlier = CapMessage.objects.filter(
        trail_system_id=message.trail_system_id,
        thread=message.thread,
        sequence__lt=message.sequence,
    )
    alert = (
        earlier.filter(msg_type=MsgType.ALERT)
        .order_by("-sequence")
        .values_list("sequence", flat=True)
        .first()
    )
    return list(earlier.filter(sequence__gte=alert or 1).order_by("sequence"))
