"""The Celery app: configured from Django settings (CELERY_* names).

Webhook attempts go to a queue of their own, `<CELERY_QUEUE>-webhooks`, which a worker of
their own consumes (Procfile's `webhooks` line): a slow receiver can hold only that worker,
never the compiles and notifications on `CELERY_QUEUE`. The published files' compressed
copies go to `<CELERY_QUEUE>-copies`, consumed by a worker of its own at a lower CPU priority
(Procfile's `copies`): a compile never waits behind them.
Riders' alerts (fan-out and push) go to `<CELERY_QUEUE>-alerts` for the same reason as
webhooks (Procfile's `alerts` line).
"""

import os

from celery import Celery
from celery.signals import task_postrun, task_prerun
from django.db import close_old_connections

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("trails")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def keep_connections_as_requests_do(sender=None, **kwargs) -> None:
    """A task starts and ends as a request does: its database connection is kept while it
    is younger than CONN_MAX_AGE and usable, not opened anew for every task as Celery's own
    fixup would (settings.CELERY_DB_REUSE_MAX). Eager tasks run inside the caller's
    transaction and connection."""
    if getattr(getattr(sender, "request", None), "is_eager", False):
        return
    close_old_connections()


task_prerun.connect(keep_connections_as_requests_do, dispatch_uid="trails-task-prerun-db")
task_postrun.connect(keep_connections_as_requests_do, dispatch_uid="trails-task-postrun-db")

WEBHOOK_TASKS = frozenset({"webhooks.tasks.send_webhooks", "webhooks.tasks.dispatch_webhooks"})
COPY_TASKS = frozenset({"publishing.tasks.make_copies"})
ALERT_TASKS = frozenset(
    {"alerts.tasks.fan_out_alerts", "alerts.tasks.send_alerts", "alerts.tasks.dispatch_alerts"}
)


def webhook_queue(default_queue: str) -> str:
    return f"{default_queue}-webhooks"


def copies_queue(default_queue: str) -> str:
    return f"{default_queue}-copies"


def alert_queue(default_queue: str) -> str:
    return f"{default_queue}-alerts"


def route(name: str, args, kwargs, options, task=None, **more) -> dict | None:
    """Read at each send, so the queue follows CELERY_QUEUE as the settings have it then."""
    if name in WEBHOOK_TASKS:
        return {"queue": webhook_queue(app.conf.task_default_queue)}
    if name in COPY_TASKS:
        return {"queue": copies_queue(app.conf.task_default_queue)}
    if name in ALERT_TASKS:
        return {"queue": alert_queue(app.conf.task_default_queue)}
    return None


app.conf.task_routes = (route,)
