"""Background work of live grooming: measuring a running session, and beat's sweep."""

from celery import shared_task

from core.queueing import queue_on_commit
from grooming import sessions


@shared_task(acks_late=True)
def measure_grooming_session(session_id: str) -> None:
    """Mark the trails the session's track grooms so far (idempotent: a trail is marked once)."""
    sessions.measure_session(session_id=session_id)


@shared_task(acks_late=True)
def sweep_grooming_sessions() -> int:
    """End sessions 15 minutes without a position, measure positions not measured yet."""
    return sessions.sweep_sessions()


def on_measurement_due(sender, *, session_id: str, **kwargs) -> None:
    """Receiver of sessions.measurement_due (grooming.apps): queue the measurement once the
    positions are committed. A measurement not queued is the sweep's."""
    queue_on_commit(measure_grooming_session, session_id)
