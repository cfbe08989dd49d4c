"""Reads of webhooks."""

from django.db.models import QuerySet

from core.errors import NotFound
from trails.models import TrailSystem
from webhooks.models import WebhookDelivery, WebhookEndpoint


def endpoints_of_system(system: TrailSystem) -> QuerySet[WebhookEndpoint]:
    return WebhookEndpoint.objects.filter(trail_system=system).order_by("created_on", "id")


def endpoint_or_404(system: TrailSystem, endpoint_id: str) -> WebhookEndpoint:
    """The system's endpoint; another system's is as unknown as a missing one."""
    endpoint = WebhookEndpoint.objects.filter(trail_system=system, pk=endpoint_id).first()
    if endpoint is None:
        raise NotFound("webhook_not_found", f"No webhook {endpoint_id!r} in this trail system.")
    return endpoint


def waiting_count(endpoint: WebhookEndpoint) -> int:
    """How many of its deliveries wait to be sent (in order)."""
    return endpoint.deliveries.filter(state=WebhookDelivery.State.PENDING).count()
