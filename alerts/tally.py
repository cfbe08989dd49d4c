"""Counts of alerts by channel and outcome, kept in the database so /metrics is right
whichever worker did the work: sent, coalesced (joined another message, or left out by
"once a day"), held (by quiet hours) and refused (by the push service, or given up)."""

from django.db import connection

from alerts.models import AlertCount

SENT, COALESCED, HELD, REFUSED = "sent", "coalesced", "held", "refused"
OUTCOMES = (SENT, COALESCED, HELD, REFUSED)


def add(counts: dict[tuple[str, str], int]) -> None:
    """Add to the counts (one statement each, safe against a concurrent first count)."""
    table = connection.ops.quote_name(AlertCount._meta.db_table)
    with connection.cursor() as cursor:
        for (channel, outcome), count in counts.items():
            if count:
                cursor.execute(
                    f"INSERT INTO {table} (channel, outcome, count) VALUES (%s, %s, %s) "
                    f"ON CONFLICT (channel, outcome) DO UPDATE SET count = {table}.count + "
                    "excluded.count",
                    [channel, outcome, count],
                )
