"""Reads of riders' alerts: a follower's rules as the interface shows them, and how many
riders follow each trail (a count, never who)."""

from collections import Counter

from django.db.models import Q

from alerts.models import Follower, Rule
from trails.models import TrailSystem


def follower_document(follower: Follower) -> dict:
    rules = follower.rules.order_by("id")
    quiet = (
        {"from": f"{follower.quiet_from:%H:%M}", "to": f"{follower.quiet_to:%H:%M}"}
        if follower.quiet_from is not None
        else None
    )
    return {
        "systemId": follower.trail_system_id,
        "channel": follower.channel,
        "active": follower.confirmed_on is not None,
        "rules": [
            {
                "trailId": rule.trail_id,
                "activity": rule.activity or None,
                "on": rule.on,
                "condition": rule.condition or None,
                "snowCm": rule.snow_cm,
            }
            for rule in rules
        ],
        "quietHours": quiet,
        "oncePerDay": follower.once_per_day,
    }


def follower_counts(system: TrailSystem) -> dict[str | None, int]:
    """Riders following each trail (None: the whole system), each counted once per trail."""
    active = Q(follower__trail_system=system, follower__confirmed_on__isnull=False)
    pairs = set(Rule.objects.filter(active).values_list("trail_id", "follower_id"))
    return dict(Counter(trail_id for trail_id, _ in pairs))
