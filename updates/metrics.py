"""Notification metrics: deliveries by channel and state, read from the database."""

from django.db.models import Count

from core.metrics import DatabaseGauge
from updates.models import Delivery


def deliveries_by_state():
    counts = {
        (row["channel"], row["state"]): row["n"]
        for row in Delivery.objects.order_by().values("channel", "state").annotate(n=Count("pk"))
    }
    for channel in Delivery.Channel.values:
        for state in Delivery.State.values:
            yield (channel, state), counts.get((channel, state), 0)


DatabaseGauge(
    "trails_notification_deliveries",
    "Notification deliveries (one message to one subscriber) by channel and state.",
    ["channel", "state"],
    deliveries_by_state,
)
