"""Notification metrics: deliveries by channel and state, read from the database.

The unfinished states are counted at every scrape through their partial indexes, which hold
only those rows. The finished ones (sent, failed, skipped) grow with every fan-out, millions
of rows, and never change once reached: their counts are shared through the cache and read
again at most every DELIVERY_METRICS_SECONDS.
"""

from django.conf import settings
from django.db.models import Count
from prometheus_client import Counter

from core.caching import cached
from core.metrics import DatabaseGauge
from updates.models import Delivery

UNFINISHED = (Delivery.State.PENDING, Delivery.State.SENDING)
FINISHED_CACHE_KEY = "metrics:finished-deliveries"


def _by_channel_and_state(deliveries) -> dict[tuple[str, str], int]:
    rows = deliveries.order_by().values("channel", "state").annotate(n=Count("pk"))
    return {(row["channel"], row["state"]): row["n"] for row in rows}


def finished_counts() -> dict[tuple[str, str], int]:
    return cached(
        FINISHED_CACHE_KEY,
        lambda: _by_channel_and_state(Delivery.objects.exclude(state__in=UNFINISHED)),
        settings.DELIVERY_METRICS_SECONDS,
    )


def deliveries_by_state():
    counts = {**finished_counts()}
    for state in UNFINISHED:  # one state per query: only then does its partial index apply
        counts |= _by_channel_and_state(Delivery.objects.filter(state=state))
    for channel in Delivery.Channel.values:
        for state in Delivery.State.values:
            yield (channel, state), counts.get((channel, state), 0)


DatabaseGauge(
    "trails_notification_deliveries",
    "Notification deliveries (one message to one subscriber) by channel and state.",
    ["channel", "state"],
    deliveries_by_state,
)

# Counted by the process that refuses (every web process's figures are summed under
# prometheus_client's multiprocess mode).
sms_confirmations_refused = Counter(
    "trails_sms_confirmations_refused",
    "Confirmation SMS of the public sign-up not sent, by reason: system_budget or site_budget "
    "(the day's budget is spent), not_mobile or abroad (the number was refused).",
    ["reason"],
)
