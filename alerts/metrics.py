"""/metrics: riders' alerts by channel and outcome (alerts.tally), read from the database at
each scrape, so right whichever worker fanned out or sent."""

from alerts.models import AlertCount
from core.metrics import DatabaseGauge


def alert_counts():
    return [
        ((channel, outcome), count)
        for channel, outcome, count in AlertCount.objects.values_list("channel", "outcome", "count")
    ]


DatabaseGauge(
    "trails_alerts",
    "Riders' alerts since the start, by channel (push, email, sms) and outcome: sent, "
    "coalesced (joined another message, or left out by once a day), held (by quiet hours) "
    "and refused (by the push service, or given up).",
    ["channel", "outcome"],
    alert_counts,
)
