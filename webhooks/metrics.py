"""Webhook metrics, read from the database at scrape time: the channel's sending tasks (its
fair queue's claims), the endpoints waiting for a slot, the slow ones, and the deliveries
waiting to be sent."""

from django.utils import timezone

from core.metrics import DatabaseGauge
from webhooks.delivery import due_endpoints
from webhooks.models import EndpointShare, WebhookDelivery


def sending_tasks():
    claimed = EndpointShare.objects.exclude(claim="")
    yield ("queued",), claimed.filter(started_on=None).count()
    yield ("running",), claimed.exclude(started_on=None).count()


def endpoints_waiting():
    claimed = set(EndpointShare.objects.exclude(claim="").values_list("pk", flat=True))
    yield (), sum(1 for _, endpoint in due_endpoints(timezone.now()) if endpoint not in claimed)


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
