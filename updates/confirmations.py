"""Subscribing from the public map: nothing is subscribed until the contact is confirmed.

An e-mail address is confirmed by a single-use link valid 24 hours, a phone number by a 6-digit
code sent by SMS (valid 30 minutes, 5 tries). Whether the contact was already subscribed makes
no difference to what the requester sees: a confirmed contact that is already subscribed simply
stays subscribed. Only digests of the link token and of the code are stored.
"""

import logging
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from django.conf import settings
from django.core import mail
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.crypto import constant_time_compare, salted_hmac

from core import queueing
from core.messages import render_message, subject_line
from trails.countries import sms_countries
from trails.models import TrailSystem
from updates import sms, sms_budget
from updates.metrics import sms_confirmations_refused
from updates.models import PendingSubscription, Subscriber
from updates.notifications.rendering import public_map_url
from updates.notifications.sms_text import sms_name
from updates.selectors import email_sign_up, email_token_digest
from updates.subscribers import check_sms_number, normalize_email, normalize_phone

logger = logging.getLogger(__name__)

LINK_LIFETIME = timedelta(hours=24)
CODE_LIFETIME = timedelta(minutes=30)
CODE_MAX_ATTEMPTS = 5


class Outcome(StrEnum):
    """What a confirmation attempt did, for the page that answers it."""

    CONFIRMED = "confirmed"
    WRONG_CODE = "wrong_code"
    EXPIRED = "expired"  # unknown, used, too old, or out of tries


@dataclass(frozen=True)
class Confirmation:
    outcome: Outcome
    pending: PendingSubscription | None = None


def confirmation_url(token: str) -> str:
    return f"{settings.PUBLIC_BASE_URL}/subscribe/confirm/{token}"


def _code_digest(pending_id: str, code: str) -> str:
    return salted_hmac("updates.confirmations.code", f"{pending_id}:{code}").hexdigest()


@dataclass(frozen=True)
class SignUp:
    """What a sign-up did: the pending subscription (None when nothing was left to confirm)
    and whether sign-up by text was paused for today, so no code was sent."""

    pending: PendingSubscription | None
    sms_paused: bool = False


def clean_sign_up(*, system: TrailSystem, email: str = "", phone: str = "") -> tuple[str, str]:
    """The normalized (email, phone) of a sign-up to `system`. Raises ValidationError (with a
    code the public form words in the system's language) for a missing or malformed contact,
    a mailbox that is not public, or a number that may not get our text messages: not a
    mobile number, or not one of the system's SMS countries."""
    email, phone = normalize_email(email), normalize_phone(phone)
    if not email and not phone:
        raise ValidationError("Give an email address, a phone number, or both.", code="empty")
    if phone:
        try:
            check_sms_number(phone, sms_countries(system))
        except ValidationError as refused:
            reason = "not_mobile" if refused.code == "phone_not_mobile" else "abroad"
            sms_confirmations_refused.labels(reason=reason).inc()
            raise
    return email, phone


@transaction.atomic
def request_subscription(*, system: TrailSystem, email: str = "", phone: str = "") -> SignUp:
    """Record a sign-up and send its confirmation link and/or code after the commit.

    Raises ValidationError as clean_sign_up does. Past the day's SMS budget (sms_budget) the
    number is left out: an e-mail address is still signed up, and the answer says that sign-up
    by text is paused. Never looks at existing subscribers, so the answer cannot tell anyone
    whether a contact is subscribed."""
    email, phone = clean_sign_up(system=system, email=email, phone=phone)
    paused = bool(phone) and not sms_budget.take(system)
    if paused:
        phone = ""
        if not email:
            return SignUp(None, sms_paused=True)
    now = timezone.now()
    pending = PendingSubscription(
        trail_system=system,
        email=email,
        phone=phone,
        expires_on=now + LINK_LIFETIME,
        code_expires_on=now + CODE_LIFETIME if phone else None,
    )
    token = code = ""
    if email:
        token = secrets.token_urlsafe(32)
        pending.email_token_digest = email_token_digest(token)
    if phone:
        code = f"{secrets.randbelow(1_000_000):06d}"
        pending.code_digest = _code_digest(pending.pk, code)
    pending.save()
    queueing.on_commit(lambda: _send_confirmations(pending, token, code))
    return SignUp(pending, sms_paused=paused)


def _send_confirmations(pending: PendingSubscription, token: str, code: str) -> None:
    """Send the link and the code; a failure is logged, and the person can ask again."""
    system = pending.trail_system
    context = {
        "system_name": system.name,
        "map_url": public_map_url(system.pk),
        "confirm_url": confirmation_url(token),
        "code": code,
    }

    def part(name: str) -> str:
        return render_message(f"subscriptions/{name}", context, language=system.language)

    if token:
        try:
            mail.send_mail(
                subject_line(part("confirm_subject.txt")),
                part("confirm_email.txt"),
                None,
                [pending.email],
            )
        except Exception:
            logger.exception("Confirmation e-mail for pending subscription %s failed", pending.pk)
    if code:
        context["system_name"] = sms_name(system.name)
        try:
            sms.send_sms(pending.phone, part("confirm_sms.txt"))
        except Exception:
            logger.exception("Confirmation SMS for pending subscription %s failed", pending.pk)


def _subscribe(pending: PendingSubscription, *, email: str = "", phone: str = "") -> None:
    """Add the confirmed contact: nothing if it is already subscribed to the system, else to
    the subscriber its other contact made, else to a new subscriber."""
    active = Subscriber.objects.filter(
        trail_system_id=pending.trail_system_id, unsubscribed_on__isnull=True
    )
    if email and active.filter(email__iexact=email).exists():
        return
    if phone and active.filter(phone=phone).exists():
        return
    subscriber = pending.subscriber
    if subscriber is not None and subscriber.unsubscribed_on is None:
        if email:
            subscriber.email = email
        if phone:
            subscriber.phone = phone
        subscriber.save(update_fields=["email", "phone"])
        return
    pending.subscriber = Subscriber.objects.create(
        trail_system_id=pending.trail_system_id, email=email, phone=phone
    )


@transaction.atomic
def confirm_email(*, token: str) -> Confirmation:
    """The button of the link's page: the first use within 24 hours subscribes the address."""
    pending = email_sign_up(token, for_update=True)
    if pending is None or not pending.email_link_open:
        return Confirmation(Outcome.EXPIRED, pending)
    _subscribe(pending, email=pending.email)
    pending.email_confirmed_on = timezone.now()
    pending.save(update_fields=["email_confirmed_on", "subscriber"])
    return Confirmation(Outcome.CONFIRMED, pending)


@transaction.atomic
def confirm_phone(*, system: TrailSystem, pending_id: str, code: str) -> Confirmation:
    """Check the code sent by SMS; a right code within 30 minutes and 5 tries subscribes
    the number."""
    pending = (
        PendingSubscription.objects.select_for_update(of=("self",))
        .select_related("trail_system", "subscriber")
        .filter(pk=pending_id, trail_system=system)
        .exclude(phone="")
        .first()
    )
    if (
        pending is None
        or pending.phone_confirmed_on
        or pending.code_expires_on is None
        or pending.code_expires_on <= timezone.now()
        or pending.code_attempts >= CODE_MAX_ATTEMPTS
    ):
        return Confirmation(Outcome.EXPIRED, pending)
    pending.code_attempts += 1
    code = "".join(code.split())
    if not constant_time_compare(_code_digest(pending.pk, code), pending.code_digest):
        pending.save(update_fields=["code_attempts"])
        if pending.code_attempts >= CODE_MAX_ATTEMPTS:
            return Confirmation(Outcome.EXPIRED, pending)
        return Confirmation(Outcome.WRONG_CODE, pending)
    _subscribe(pending, phone=pending.phone)
    pending.phone_confirmed_on = timezone.now()
    pending.save(update_fields=["code_attempts", "phone_confirmed_on", "subscriber"])
    return Confirmation(Outcome.CONFIRMED, pending)


@transaction.atomic
def purge_expired_confirmations(*, now: datetime | None = None) -> int:
    """Delete sign-ups past their 24 hours, confirmed or not: they hold contacts that
    nobody confirmed, or whose confirmation is done. Returns how many went."""
    deleted, _ = PendingSubscription.objects.filter(expires_on__lte=now or timezone.now()).delete()
    return deleted
