"""Following by e-mail or SMS: nothing is sent to an address or number until its owner
confirms it, as the subscribers' sign-up does (updates.confirmations): an e-mail address by
a single-use link valid 24 hours whose page has a button (a mail scanner opening the link
confirms nothing), a phone number by a 6-digit code sent by SMS, valid 30 minutes, 5 tries,
typed on the rider's alerts page. Numbers are checked as for subscribers (mobile, of the
system's SMS countries) and every code sent counts against the same daily SMS budgets. Only
digests of the link token and of the code are stored. The answer to a sign-up never tells
whether the address already follows the system."""

import logging
import secrets
from datetime import datetime, timedelta
from enum import StrEnum

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.crypto import constant_time_compare

from alerts.models import Channel, Follower
from alerts.selectors import confirmation_digest, confirmation_open, follower_of_link
from core import queueing
from core.errors import Invalid, TooMany
from core.links import absolute
from core.messages import render_message, send_email
from trails.models import TrailSystem
from updates import sms, sms_budget
from updates.confirmations import clean_sign_up, refusal_words
from updates.notifications.rendering import public_map_url
from updates.notifications.sms_text import sms_name

logger = logging.getLogger(__name__)

LINK_LIFETIME = timedelta(hours=24)
CODE_LIFETIME = timedelta(minutes=30)


class Outcome(StrEnum):
    CONFIRMED = "confirmed"
    WRONG_CODE = "wrong_code"
    EXPIRED = "expired"  # unknown, used, too old, or out of tries


def confirmation_url(follower_id: str, token: str) -> str:
    return absolute("alerts-confirm", f"{follower_id}.{token}")


def clean_address(system: TrailSystem, channel: str, address) -> str:
    """The normalized e-mail address or E.164 mobile number, or Invalid naming `address`
    whose message, in the active language, is the one the map's sign-up form gives."""
    if not isinstance(address, str) or not address.strip() or len(address) > 254:
        what = "an e-mail address" if channel == Channel.EMAIL else "a phone number"
        raise Invalid("missing_field", f"{what} is required.", field="address")
    given = {"email": address} if channel == Channel.EMAIL else {"phone": address}
    try:
        email, phone = clean_sign_up(system=system, **given)
    except ValidationError as refused:
        raise Invalid("invalid_field", refusal_words(refused, system)[0], field="address") from None
    return email or phone


def pending_follower(*, system: TrailSystem, channel: str, address: str) -> Follower:
    """A new follower of the address waiting for confirmation, its link or code sent after
    the commit. One an earlier sign-up left goes: anyone may sign up an address, and the
    manage URL that sign-up got must not come to manage the alerts its owner confirms. Past
    the day's SMS budget no code is sent: TooMany, and nothing is stored."""
    if channel == Channel.SMS and not sms_budget.take(system):
        raise TooMany(
            "sms_paused",
            "following by text message is paused for today on this system; "
            "follow by e-mail or on this browser instead.",
            retry_after=sms_budget.seconds_to_tomorrow(),
        )
    now = timezone.now()
    follower = _new_pending(system, channel, address)
    secret = (
        secrets.token_urlsafe(32)
        if channel == Channel.EMAIL
        else f"{secrets.randbelow(1_000_000):06d}"
    )
    follower.confirmation_digest = confirmation_digest(follower.pk, secret)
    follower.confirmation_attempts = 0
    follower.confirmation_expires_on = now + (
        LINK_LIFETIME if channel == Channel.EMAIL else CODE_LIFETIME
    )
    follower.save(
        update_fields=["confirmation_digest", "confirmation_attempts", "confirmation_expires_on"]
    )
    queueing.on_commit(lambda: _send_confirmation(follower, secret))
    return follower


def _new_pending(system: TrailSystem, channel: str, address: str) -> Follower:
    """The address's pending follower, in place of any earlier one; a sign-up of the same
    address committed meanwhile (a double click) is replaced as well, not a failure."""
    earlier = Follower.objects.filter(
        trail_system=system, channel=channel, address=address, confirmed_on=None
    )
    try:
        with transaction.atomic():
            earlier.delete()
            return Follower.objects.create(trail_system=system, channel=channel, address=address)
    except IntegrityError:
        earlier.delete()
        return Follower.objects.create(trail_system=system, channel=channel, address=address)


def _send_confirmation(follower: Follower, secret: str) -> None:
    """A failure is logged: the rider can sign up again."""
    system = follower.trail_system
    context = {"system_name": system.name, "map_url": public_map_url(system.pk)}
    if follower.channel == Channel.EMAIL:
        context["confirm_url"] = confirmation_url(follower.pk, secret)
        send_email(
            "alerts/confirm", context, [follower.address], language=system.language,
            about=follower.pk,
        )  # fmt: skip
        return
    context.update(code=secret, system_name=sms_name(system.name))
    text = render_message("alerts/confirm_sms.txt", context, language=system.language)
    try:
        sms.send_sms(follower.address, text)
    except Exception:
        logger.exception("The confirmation code of follower %s failed", follower.pk)


def _confirm(follower: Follower, now: datetime) -> None:
    """The address's earlier rules give way to the ones just confirmed."""
    Follower.objects.filter(
        trail_system_id=follower.trail_system_id,
        channel=follower.channel,
        address=follower.address,
        confirmed_on__isnull=False,
    ).delete()
    follower.confirmed_on = now
    follower.confirmation_digest = ""
    follower.confirmation_expires_on = None
    follower.save(update_fields=["confirmed_on", "confirmation_digest", "confirmation_expires_on"])


@transaction.atomic
def confirm_email(*, key: str) -> Follower | None:
    """The button of the link's page (`key`: the follower's id and the token): the follower
    confirmed, or None when the link is not (or no longer) open."""
    follower = follower_of_link(key, for_update=True)
    if follower is not None:
        _confirm(follower, timezone.now())
    return follower


@transaction.atomic
def confirm_code(*, follower: Follower, code: str) -> Outcome:
    """The code sent by SMS, typed on the rider's alerts page: right within 30 minutes and
    5 tries, it starts the alerts."""
    locked = (
        Follower.objects.select_for_update()
        .filter(pk=follower.pk, channel=Channel.SMS, confirmed_on=None)
        .first()
    )
    now = timezone.now()
    if locked is None or not confirmation_open(locked, now):
        return Outcome.EXPIRED
    locked.confirmation_attempts += 1
    code = "".join(str(code).split())
    if not constant_time_compare(confirmation_digest(locked.pk, code), locked.confirmation_digest):
        locked.save(update_fields=["confirmation_attempts"])
        return Outcome.WRONG_CODE if confirmation_open(locked, now) else Outcome.EXPIRED
    _confirm(locked, now)
    return Outcome.CONFIRMED


@transaction.atomic
def purge_unconfirmed(*, now: datetime | None = None) -> int:
    """Followers nobody confirmed in time go, with their rules: they hold an address nobody
    vouched for."""
    now = now or timezone.now()
    deleted, _ = Follower.objects.filter(
        confirmed_on=None, confirmation_expires_on__lte=now
    ).delete()
    return deleted
