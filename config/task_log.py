"""Without a broker (the embedded default) tasks run inside the command or request that queued
them, after its commit. Their per-task INFO lines (Celery's "Task ... succeeded", a compile's
"compiled ...") would bury a command's own report, one line per trail on an import, so they
are left out; their warnings and errors, a failed task included, are still logged. A worker's
tasks are not in-process: its lines are kept."""

import logging

from celery import current_task


class InProcessTaskFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno >= logging.WARNING:
            return True
        task = current_task
        return not (task and task.request.is_eager)
