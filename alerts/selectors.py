"""Reads of riders' alerts: a follower's rules as the interface shows them, and how many
riders follow each trail (a count, never who)."""

from datetime import datetime

from django.utils import timezone
from django.utils.crypto import constant_time_compare, salted_hmac

from alerts.models import Channel, Follower, Rule
from trails.models import Trail

CODE_MAX_ATTEMPTS = 5


def confirmation_digest(follower_id: str, secret: str) -> str:
    """What is stored of a confirmation link's token or code."""
    return salted_hmac("alerts.confirmations", f"{follower_id}:{secret}").hexdigest()


def confirmation_open(follower: Follower, now: datetime) -> bool:
    return (
        follower.confirmed_on is None
        and follower.confirmation_expires_on is not None
        and follower.confirmation_expires_on > now
        and follower.confirmation_attempts < CODE_MAX_ATTEMPTS
    )


def follower_of_link(key: str, *, for_update: bool = False) -> Follower | None:
    """The e-mail follower a confirmation link (`<follower id>.<token>`) names, while the
    link is open."""
    follower_id, _, token = key.partition(".")
    followers = Follower.objects.select_related("trail_system")
    if for_update:
        followers = followers.select_for_update(of=("self",))
    follower = followers.filter(pk=follower_id, channel=Channel.EMAIL, confirmed_on=None).first()
    if follower is None or not confirmation_open(follower, timezone.now()):
        return None
    digest = confirmation_digest(follower.pk, token)
    return follower if constant_time_compare(digest, follower.confirmation_digest) else None


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
        "address": follower.address or None,
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


def followed_trail_names(follower: Follower) -> dict[str, str]:
    """The names of the trails the follower's rules name, by id: a trail moved to the trash
    too, whose rule stays (and comes back with it)."""
    trail_ids = follower.rules.exclude(trail=None).values("trail_id")
    return dict(Trail.all_objects.filter(pk__in=trail_ids).values_list("pk", "name"))


def followers_of_trail(trail: Trail) -> int:
    """Riders following the trail itself (a count, never who)."""
    return (
        Rule.objects.filter(trail=trail, follower__confirmed_on__isnull=False)
        .values("follower_id")
        .distinct()
        .count()
    )
