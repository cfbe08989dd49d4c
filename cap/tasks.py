"""Issuing CAP messages in the background: once a change that may alter a system's warnings
commits, and on beat's sweep for what changes with time alone (a notice's expiry, a planned
closure's start or end) or whose task was lost (broker down)."""

from celery import shared_task

from cap.services import issue_due_messages, issue_system_messages
from core.queueing import queue_on_commit


@shared_task(acks_late=True)
def issue_messages_of_system(system_id: str) -> int:
    """Idempotent: a message is issued once, whatever runs it (cap.services)."""
    return len(issue_system_messages(system_id=system_id))


@shared_task(acks_late=True)
def sweep_cap_messages() -> int:
    """Beat, every SCHEDULE_SWEEP_SECONDS: the messages due on every system with warnings."""
    return issue_due_messages()


def on_warnings_changed(sender, *, system_id: str, **kwargs) -> None:
    """Receiver (cap.apps) of core.compiles.compile_requested, which every write of what a
    system publishes sends, and of closures.services.closure_changed, which every write of a
    closure sends (a planned one asks for no compile): issue the system's messages once the
    change commits, so `sent` is the change's time and a short-lived warning is announced
    and cancelled. A task not queued is the sweep's."""
    queue_on_commit(issue_messages_of_system, system_id)
