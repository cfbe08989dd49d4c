"""The changes riders may follow, taken from the events the services announce (core.events)
in the transaction of the change: a status change, a grooming pass, an update (a notice of
warning or danger, a snow report). They are recorded with the change (an outbox) and fanned
out to the followers once it commits, so no "notify" box is needed and nothing is lost to a
broker outage (the sweep fans out what was left).

Trail closures (another app) hook in the same way: announcing `closure.started` and
`closure.ended` (alerts.changes) with `trailId`, `activity`, `trailName`, `reason` and `danger`
(a closure for danger is never held by quiet hours)."""

from collections.abc import Callable

from django.utils import timezone

from alerts.changes import FOLLOWED_EVENTS
from alerts.models import AlertEvent, Follower
from alerts.tasks import enqueue_fan_out
from core import queueing


def has_followers(system_id: str) -> bool:
    """Any active follower, on a system whose owner has not turned alerts off (one query)."""
    return Follower.objects.filter(
        trail_system_id=system_id,
        confirmed_on__isnull=False,
        trail_system__alerts_off__isnull=True,
    ).exists()


def on_events_announced(
    sender, *, system_id: str, types: frozenset[str], builds: tuple[Callable, ...], **kwargs
) -> None:
    """Receiver of core.events.events_announced, inside the writing transaction."""
    if not types & FOLLOWED_EVENTS or not has_followers(system_id):
        return
    now = timezone.now()
    recorded = AlertEvent.objects.bulk_create(
        AlertEvent(
            trail_system_id=system_id, type=event.type, data=dict(event.data), created_on=now
        )
        for build in builds
        for event in build()
        if event.type in FOLLOWED_EVENTS
    )
    if recorded:
        queueing.on_commit(lambda: enqueue_fan_out(system_id))
