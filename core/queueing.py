"""The one way to queue background work once the caller's transaction commits.

By then the write has committed, so queueing never fails the caller: a broker that cannot be
reached (or, in the embedded default where tasks run in-process, an error of the task) is
logged and counted, never turned into an error of the write that is already kept. The work is
not lost: each kind records what is due in the database in the write's own transaction (compile
requests, webhook deliveries, fan-outs not yet queued, sessions not yet measured, report alerts
not yet sent), and a beat sweep queues it again once the broker answers."""

import logging
from collections.abc import Callable

from celery import Task
from django.db import transaction
from prometheus_client import Counter

logger = logging.getLogger(__name__)

tasks_not_queued = Counter(
    "trails_tasks_not_queued",
    "Background tasks that could not be queued (broker unreachable) or failed in-process; "
    "their sweep queues them again.",
    ["task"],
)


def queue(
    task: Task, *arguments: object, countdown: float = 0.0, expires: float | None = None
) -> bool:
    """Queue the task now (to run after `countdown` seconds; dropped by the worker when not
    started within `expires` seconds); returns whether it was queued (in-process: whether
    it ran)."""
    try:
        task.apply_async(arguments, countdown=countdown or None, expires=expires)
    except Exception:
        tasks_not_queued.labels(task.name).inc()
        logger.exception("%s%r not queued or failed", task.name, arguments)
        return False
    return True


def queue_on_commit(task: Task, *arguments: object, countdown: float = 0.0) -> None:
    """Queue the task once the current transaction commits (at once outside one)."""
    transaction.on_commit(lambda: queue(task, *arguments, countdown=countdown))


def on_commit(work: Callable[[], object]) -> None:
    """Run `work` once the current transaction commits, never failing the caller: work that is
    more than one task to queue (a check before it, which then uses `queue`; a signal to this
    process; an e-mail sent in-process). Its error is logged (Django's robust on_commit)."""
    transaction.on_commit(work, robust=True)
