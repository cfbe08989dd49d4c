"""Writes of riders' alerts: following (a push subscription, e-mail address or phone number
with its rules), changing the rules, and unfollowing; an owner turning alerts off. No
account: the manage URL, which every message carries, is the rider's key."""

from dataclasses import dataclass
from typing import Any

from django.core import signing
from django.db import transaction
from django.utils import timezone

from alerts import confirmations, push, vapid
from alerts.models import Channel, Follower, Rule, SystemAlerts
from alerts.rules import RuleSpec, clean_quiet_hours, clean_rules
from core.actors import Actor
from core.errors import Forbidden, Invalid
from core.links import absolute
from trails.models import TrailSystem

MANAGE_SALT = "alerts.manage"


def manage_token(follower_id: str) -> str:
    """The key of the rider's alerts page: the follower's id, signed (nothing to store; it
    dies with the follower)."""
    return signing.Signer(salt=MANAGE_SALT).sign(follower_id)


def manage_url(follower_id: str) -> str:
    return absolute("alerts-manage", manage_token(follower_id))


def follower_of_token(token: str) -> Follower | None:
    try:
        follower_id = signing.Signer(salt=MANAGE_SALT).unsign(token)
    except signing.BadSignature:
        return None
    return Follower.objects.filter(pk=follower_id).select_related("trail_system").first()


def alerts_on(system: TrailSystem) -> bool:
    return not SystemAlerts.objects.filter(trail_system=system).exists()


@dataclass
class Following:
    follower: Follower
    manage_url: str


def _check_options(fields: dict[str, Any]) -> dict[str, Any]:
    quiet_from, quiet_to = clean_quiet_hours(fields.get("quietHours"))
    once = fields.get("oncePerDay", False)
    if not isinstance(once, bool):
        raise Invalid("invalid_field", "must be true or false.", field="once_per_day")
    return {"quiet_from": quiet_from, "quiet_to": quiet_to, "once_per_day": once}


def follow(*, system: TrailSystem, fields: dict[str, Any]) -> Following:
    """A follower with its rules, from the interface's JSON. Push is active at once; a push
    subscription that follows this system already has its rules and options replaced. An
    e-mail address or phone number is sent a link or code first (alerts.confirmations)."""
    if not alerts_on(system):
        raise Forbidden("alerts_off", f"{system.name} does not send alerts.")
    channel = fields.get("channel")
    if channel not in Channel.values:
        raise Invalid("invalid_field", "must be push, email or sms.", field="channel")
    if channel == Channel.PUSH:
        if not vapid.configured():
            raise Forbidden("push_unavailable", "this service has no VAPID keys for Web Push.")
        subscription = push.check_subscription(fields.get("subscription"))
    else:
        address = confirmations.clean_address(system, channel, fields.get("address"))
    specs = clean_rules(system, fields.get("rules"))
    options = _check_options(fields)
    with transaction.atomic():
        if channel == Channel.PUSH:
            follower, _ = Follower.objects.update_or_create(
                trail_system=system,
                channel=Channel.PUSH,
                endpoint=subscription["endpoint"],
                defaults={
                    "p256dh": subscription["keys"]["p256dh"],
                    "auth": subscription["keys"]["auth"],
                    "confirmed_on": timezone.now(),
                    **options,
                },
            )
        else:
            follower = confirmations.pending_follower(
                system=system, channel=channel, address=address
            )
            for name, value in options.items():
                setattr(follower, name, value)
            follower.save(update_fields=list(options))
        _replace_rules(follower, specs)
    return Following(follower, manage_url(follower.pk))


def _replace_rules(follower: Follower, specs: list[RuleSpec]) -> None:
    follower.rules.all().delete()
    Rule.objects.bulk_create(
        Rule(
            follower=follower,
            trail_id=spec.trail_id,
            activity=spec.activity,
            on=spec.on,
            condition=spec.condition,
            snow_cm=spec.snow_cm,
        )
        for spec in specs
    )


def change_follower(*, follower: Follower, fields: dict[str, Any]) -> Follower:
    """New rules (all of them, as on sign-up) and, when sent, new quiet hours and once a day."""
    specs = clean_rules(follower.trail_system, fields.get("rules"))
    options = _check_options({**_current_options(follower), **fields})
    with transaction.atomic():
        for name, value in options.items():
            setattr(follower, name, value)
        follower.save(update_fields=list(options))
        _replace_rules(follower, specs)
    return follower


def _current_options(follower: Follower) -> dict[str, Any]:
    quiet = (
        {"from": f"{follower.quiet_from:%H:%M}", "to": f"{follower.quiet_to:%H:%M}"}
        if follower.quiet_from is not None
        else None
    )
    return {"quietHours": quiet, "oncePerDay": follower.once_per_day}


def unfollow(*, follower: Follower) -> None:
    """Everything goes: rules, and messages not sent yet."""
    follower.delete()


@transaction.atomic
def turn_alerts_off(*, system: TrailSystem, actor: Actor) -> None:
    """Nothing more is recorded or sent for the system; followers stay, for turning on."""
    SystemAlerts.objects.get_or_create(trail_system=system, defaults={"turned_off_by": actor.uid})


@transaction.atomic
def turn_alerts_on(*, system: TrailSystem) -> None:
    SystemAlerts.objects.filter(trail_system=system).delete()


@transaction.atomic
def unfollow_phone(*, phone: str) -> int:
    """A STOP reply: every SMS follower of the number goes; how many did."""
    deleted, _ = Follower.objects.filter(channel=Channel.SMS, address=phone).delete()
    return deleted
