"""Background work of live grooming: measuring a running session, and beat's sweep."""

import logging

from celery import shared_task
from django.db import transaction

from grooming import sessions

logger = logging.getLogger(__name__)


@shared_task(acks_late=True)
def measure_grooming_session(session_id: str) -> None:
    """Mark the trails the session's track grooms so far (idempotent: a trail is marked once)."""
    sessions.measure_session(session_id=session_id)


@shared_task(acks_late=True)
def sweep_grooming_sessions() -> int:
    """End sessions 15 minutes without a position, measure positions not measured yet."""
    return sessions.sweep_sessions()


def measure_after_commit(session_id: str) -> None:
    """Queue the session's measurement once the positions are committed. Without a broker the
    position is still kept: the sweep measures it."""

    def queue() -> None:
        try:
            measure_grooming_session.delay(session_id)
        except Exception:
            logger.exception("Could not queue the measurement of session %s", session_id)

    transaction.on_commit(queue)
