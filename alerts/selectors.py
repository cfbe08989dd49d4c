"""Reads of riders' alerts: a follower's rules as the interface shows them, and how many
riders follow each trail (a count, never who)."""

from alerts.models import Follower, Rule
from trails.models import Trail


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


def followers_of_trail(trail: Trail) -> int:
    """Riders following the trail itself (a count, never who)."""
    return (
        Rule.objects.filter(trail=trail, follower__confirmed_on__isnull=False)
        .values("follower_id")
        .distinct()
        .count()
    )
