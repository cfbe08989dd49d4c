"""Events integrators subscribe to (outbound webhooks), announced by the services inside the
transaction of the change they describe.

Services sit below the webhooks app, so they cannot call it. They call `announce` inside their
transaction; webhooks, connected in its AppConfig.ready, records each event for every endpoint
subscribed to it in that same transaction (an outbox, as compile requests are) and queues the
sending once it commits: a change and its events are committed together or not at all. A
missing receiver is a configuration error, never a silently lost event.

An announcement names the event types it may hold and builds its events only when an endpoint
of the system subscribes to one of them: a write on a system without webhooks costs one small
query, and names are read only for events that will be sent."""

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from django.core.exceptions import ImproperlyConfigured
from django.dispatch import Signal

TRAIL_STATUS_CHANGED = "trail.status_changed"
POINT_STATUS_CHANGED = "point.status_changed"
UPDATE_CREATED = "update.created"
UPDATE_DELETED = "update.deleted"
GROOMING_RECORDED = "grooming.recorded"
GROOMING_STARTED = "grooming.started"
TRAIL_GROOMED = "trail.groomed"
GROOMING_ENDED = "grooming.ended"
SYSTEM_PUBLISHED = "system.published"
REPORT_CREATED = "report.created"
# A closure of a stretch of trail came into effect, or ended (closures.services); riders'
# alerts hear of them here as webhooks do.
CLOSURE_STARTED = "closure.started"
CLOSURE_ENDED = "closure.ended"
# The types an endpoint may subscribe to, in the order the docs and forms list them.
EVENT_TYPES = (
    TRAIL_STATUS_CHANGED,
    POINT_STATUS_CHANGED,
    UPDATE_CREATED,
    UPDATE_DELETED,
    GROOMING_RECORDED,
    GROOMING_STARTED,
    TRAIL_GROOMED,
    GROOMING_ENDED,
    SYSTEM_PUBLISHED,
    REPORT_CREATED,
    CLOSURE_STARTED,
    CLOSURE_ENDED,
)


@dataclass(frozen=True)
class Event:
    """One event: its type and its `data` (JSON-ready, the interface's camelCase names)."""

    type: str
    data: Mapping


# Sent with system_id, types (a frozenset) and builds (callables returning the events, one per
# batch), inside the writing transaction.
events_announced = Signal()


def announce(
    *, system_id: str, types: Collection[str], build: Callable[[], Iterable[Event]]
) -> None:
    """Announce the events `build` returns, of some of `types`, for the system's endpoints
    once this transaction commits; `build` is called only if an endpoint wants one of them."""
    announce_batches(system_id=system_id, types=types, builds=[build])


def announce_batches(
    *,
    system_id: str,
    types: Collection[str],
    builds: Sequence[Callable[[], Iterable[Event]]],
) -> None:
    """Announce batches of events in order (a trail's change, then its activities'): each
    batch keeps its own time, as separate announcements do, but the system's endpoints and
    followers are looked up once for all of them."""
    if not events_announced.has_listeners():
        raise ImproperlyConfigured("No receiver of events; is the webhooks app installed?")
    events_announced.send(
        sender=None, system_id=system_id, types=frozenset(types), builds=tuple(builds)
    )


def announce_one(*, system_id: str, type: str, data: Callable[[], Mapping]) -> None:
    """Announce one event whose data `data()` builds (only when an endpoint wants it)."""
    announce(system_id=system_id, types=[type], build=lambda: [Event(type, data())])
