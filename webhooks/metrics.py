"""Webhook metrics, read from the database at scrape time: the channel's sending tasks (its
fair queue's claims), the endpoints waiting for a slot, the slow ones, and the deliveries
waiting to be sent."""

from core.metrics import DatabaseGauge
from webhooks.models import EndpointShare, WebhookDelivery
from webhooks.tasks import fair_queue


def sending_tasks():
    for state, count in fair_queue.tasks().items():
        yield (state,), count


def endpoints_waiting():
    yield (), fair_queue.waiting()


def slow_endpoints():
    yield (), EndpointShare.objects.filter(slow=True).count()


def pending_deliveries():
    yield (), WebhookDelivery.objects.filter(state=WebhookDelivery.State.PENDING).count()


DatabaseGauge(
    "trails_webhook_sending_tasks",
    "Webhook sending tasks by state: queued (waiting in the webhook queue) or running; at "
    "most WEBHOOK_SLOTS together.",
    ["state"],
    sending_tasks,
)
DatabaseGauge(
    "trails_webhook_endpoints_waiting",
    "Webhook endpoints with deliveries due and no sending task: waiting for a free slot.",
    [],
    endpoints_waiting,
)
DatabaseGauge(
    "trails_webhook_slow_endpoints",
    "Webhook endpoints whose recent attempts took 1 s or more (slow even when they succeed).",
    [],
    slow_endpoints,
)
DatabaseGauge(
    "trails_webhook_deliveries_pending",
    "Webhook deliveries waiting to be sent (due now, retrying later, or paused).",
    [],
    pending_deliveries,
)
