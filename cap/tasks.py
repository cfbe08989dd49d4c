"""Issuing CAP messages: once a change that may alter a system's warnings commits, and on
beat's sweep for what changes with time alone (a notice's expiry, a planned closure's start
or end) or what a failed issue left."""

from celery import shared_task

from cap.services import issue_due_messages, issue_system_messages
from core import queueing


@shared_task(acks_late=True)
def sweep_cap_messages() -> int:
    """Beat, every SCHEDULE_SWEEP_SECONDS: the messages due on every system with warnings."""
    return issue_due_messages()


def on_warnings_changed(sender, *, system_id: str, **kwargs) -> None:
    """Receiver (cap.apps) of updates.services.update_changed and
    closures.services.closure_changed, which every write of a notice or a closure sends
    (a trail's write changes no warning but the bounds of a notice's area, which beat's sweep
    brings up to date; it costs the web worker nothing here): issue the system's messages the moment
    the change commits, in the writing process. A queued task would read the system only
    when a worker got to it, so a closure made and ended before then would never be
    announced; read at once, `sent` is the change's time and each state committed is
    recorded. An error is logged, never the write's (queueing.on_commit); the sweep issues
    what it left."""
    queueing.on_commit(lambda: issue_system_messages(system_id=system_id))
