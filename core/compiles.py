"""How a write asks for its trail system's published file to be compiled again.

Services sit below publishing (publishing reads their rows), so they cannot call it. They call
`request_compile` inside their transaction; publishing, connected in its AppConfig.ready,
records the request in that same transaction (the outbox) and queues the compile after commit.
A missing receiver is a configuration error, never a silently lost compile."""

from django.core.exceptions import ImproperlyConfigured
from django.dispatch import Signal

# Sent with system_id and reason, inside the writing transaction.
compile_requested = Signal()


def request_compile(system_or_id, reason: str = "") -> None:
    """Ask for a compile of the system (a TrailSystem or its id) once this transaction commits."""
    if not compile_requested.has_listeners():
        raise ImproperlyConfigured("No receiver records compile requests; is publishing installed?")
    system_id = getattr(system_or_id, "pk", system_or_id)
    compile_requested.send(sender=None, system_id=system_id, reason=reason)
