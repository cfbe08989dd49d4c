"""The Celery app: configured from Django settings (CELERY_* names).

Webhook attempts go to a queue of their own, `<CELERY_QUEUE>-webhooks`, which a worker of
their own consumes (Procfile's `webhooks` line): a slow receiver can hold only that worker,
never the compiles and notifications on `CELERY_QUEUE`.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("trails")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

WEBHOOK_TASKS = frozenset({"webhooks.tasks.send_webhooks"})


def webhook_queue(default_queue: str) -> str:
    return f"{default_queue}-webhooks"


def route(name: str, args, kwargs, options, task=None, **more) -> dict | None:
    """Read at each send, so the queue follows CELERY_QUEUE as the settings have it then."""
    if name in WEBHOOK_TASKS:
        return {"queue": webhook_queue(app.conf.task_default_queue)}
    return None


app.conf.task_routes = (route,)
