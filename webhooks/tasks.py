"""Background work of webhooks: sending an endpoint's due deliveries (on the webhook queue,
config.celery) through the channel's fair queue (core.fairqueue), the sweep that recovers
what a lost task or broker outage left, and the purge of old messages."""

from collections.abc import Collection
from datetime import timedelta

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from core.fairqueue import FairQueue, Limits, dispatch_at
from webhooks import delivery
from webhooks.models import EndpointShare, WebhookDelivery, WebhookMessage

# Messages (with their deliveries and attempts) are kept this long.
KEEP_MESSAGES = timedelta(days=30)


def webhook_limits() -> Limits:
    return Limits(slots=settings.WEBHOOK_SLOTS, per_tenant=settings.WEBHOOK_SLOTS_PER_SYSTEM)


def queue_sending(endpoint_ids: Collection[str]) -> int:
    """After a commit that made these endpoints' deliveries due: each gets a sending task
    when a slot of the channel is free for it and none is queued or running for it (that
    one looks for due deliveries before it ends). Without a broker (the embedded default)
    nothing is queued, inside a request or not: `manage.py send_webhooks --every 1`, which
    `make run` starts, sends what is due in the background."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return 0
    return fair_queue.dispatch(among=endpoint_ids)


@shared_task(acks_late=True)
def send_webhooks(endpoint_id: str, claim: str = "") -> int:
    """The claimed endpoint's due deliveries, for one share of a worker; then the slot goes
    to whoever is next. Returns the attempts made."""
    served = fair_queue.serve(
        endpoint_id, claim, lambda share: delivery.send_share(endpoint_id, share)
    )
    if served is None:
        return 0
    share, run = served
    dispatch_at(dispatch_webhooks, [run.next_retry, share.rest_until])
    return run.attempts


fair_queue = FairQueue(
    channel=delivery.CHANNEL,
    keys=EndpointShare,
    due=delivery.due_endpoints,
    task=send_webhooks,
    limits=webhook_limits,
)


@shared_task(acks_late=True)
def dispatch_webhooks() -> int:
    """At a retry's or a slow endpoint's rest's end: free slots to whoever is due."""
    return fair_queue.dispatch()


@shared_task(acks_late=True)
def sweep_webhooks() -> int:
    """Every WEBHOOK_SWEEP_SECONDS (beat): free the claims of lost tasks and dead senders,
    and give the free slots to the endpoints with due deliveries (a retry's time came, or
    their task was lost with a worker or a broker outage). Returns the tasks queued."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return 0
    return fair_queue.sweep()


@shared_task(acks_late=True)
def purge_webhook_messages() -> int:
    """Daily: messages older than 30 days go, with their deliveries and attempts (unless one
    of them is pending again: "send again")."""
    old = WebhookMessage.objects.filter(created_on__lt=timezone.now() - KEEP_MESSAGES)
    pending = WebhookDelivery.objects.filter(state=WebhookDelivery.State.PENDING)
    _, deleted = old.exclude(pk__in=pending.values("message_id")).delete()
    return deleted.get(WebhookMessage._meta.label, 0)
