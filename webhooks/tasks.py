"""Background work of webhooks: sending an endpoint's due deliveries (on the webhook queue,
config.celery), the sweep that queues what a lost task or broker outage left, and the purge
of old messages."""

from datetime import timedelta

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from core.queueing import queue
from webhooks import delivery
from webhooks.models import WebhookDelivery, WebhookMessage

# A retry further away than this is left to the sweep: Redis hands a task held longer than its
# visibility timeout to another worker, and a worker holds every countdown task in memory.
COUNTDOWN_MAX = timedelta(minutes=5)
# Messages (with their deliveries and attempts) are kept this long.
KEEP_MESSAGES = timedelta(days=30)


@shared_task(acks_late=True)
def send_webhooks(endpoint_id: str) -> int:
    """Send the endpoint's due deliveries; queue what comes next. Returns the attempts made."""
    run = delivery.send_due(endpoint_id)
    if run.more_due:
        enqueue_sending(endpoint_id)
    elif run.next_retry is not None:
        wait = run.next_retry - timezone.now()
        if wait <= COUNTDOWN_MAX:
            enqueue_sending(endpoint_id, countdown=max(wait.total_seconds(), 0.0))
    return run.attempts


@shared_task(acks_late=True)
def sweep_webhooks() -> int:
    """Every WEBHOOK_SWEEP_SECONDS (beat): queue each endpoint that has due deliveries (a
    retry's time came, or its task was lost with a worker or a broker outage)."""
    endpoint_ids = delivery.endpoints_with_due_deliveries(timezone.now())
    for endpoint_id in endpoint_ids:
        enqueue_sending(endpoint_id)
    return len(endpoint_ids)


@shared_task(acks_late=True)
def purge_webhook_messages() -> int:
    """Daily: messages older than 30 days go, with their deliveries and attempts (unless one
    of them is pending again: "send again")."""
    old = WebhookMessage.objects.filter(created_on__lt=timezone.now() - KEEP_MESSAGES)
    pending = WebhookDelivery.objects.filter(state=WebhookDelivery.State.PENDING)
    _, deleted = old.exclude(pk__in=pending.values("message_id")).delete()
    return deleted.get(WebhookMessage._meta.label, 0)


def enqueue_sending(endpoint_id: str, countdown: float = 0.0) -> bool:
    """Never fails the caller (core.queueing): the sweep queues the endpoint later. Without a
    broker (the embedded default) nothing is sent here, inside a request: `manage.py
    send_webhooks --every 1`, which `make run` starts, sends what is due in the background."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return False
    return queue(send_webhooks, endpoint_id, countdown=countdown)
