"""How a write asks for its trail system's published file to be compiled again, and how a
deletion asks for its published files to go.

Services sit below publishing (publishing reads their rows), so they cannot call it. They call
`request_compile` inside their transaction; publishing, connected in its AppConfig.ready,
records the request in that same transaction (the outbox) and queues the compile after commit.
A missing receiver is a configuration error, never a silently lost compile."""

from django.core.exceptions import ImproperlyConfigured
from django.dispatch import Signal

# Sent with system_id and reason, inside the writing transaction.
compile_requested = Signal()
# Sent with system_id, inside the transaction that deletes the system.
unpublish_requested = Signal()
# Sent inside a transaction that adds a system or changes what the all-systems list shows.
listing_changed = Signal()


def _send(signal: Signal, **arguments: str) -> None:
    if not signal.has_listeners():
        raise ImproperlyConfigured("No receiver of publishing requests; is publishing installed?")
    signal.send(sender=None, **arguments)


def request_compile(system_or_id, reason: str = "") -> None:
    """Ask for a compile of the system (a TrailSystem or its id) once this transaction commits."""
    _send(compile_requested, system_id=getattr(system_or_id, "pk", system_or_id), reason=reason)


def request_unpublish(system_id: str) -> None:
    """Ask, before deleting the system in this transaction, for its published files to go and
    the all-systems file to be rebuilt without it once the transaction commits."""
    _send(unpublish_requested, system_id=system_id)


def request_listing_rebuild() -> None:
    """Ask for the legacy all-systems file to be rebuilt once this transaction commits: a
    system was added, or what the list shows of one changed (name, place, inactive, blocked,
    hidden activities). Its trail counts are the 3-hourly rebuild's."""
    _send(listing_changed)
