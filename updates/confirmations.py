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

import phonenumbers
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.crypto import constant_time_compare, salted_hmac
from django.utils.translation import gettext
from phonenumbers import geocoder

from core import queueing
from core.links import absolute
from core.messages import render_message, send_email
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
    return absolute("subscribe-confirm", token)


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


def _words_of(code: str) -> str:
    """The form's words for a refusal of updates.confirmations.clean_sign_up (by its code),
    with %(email)s, %(phone)s and %(countries)s to fill; an empty form gets the form's intro."""
    words = {
        "email_invalid": gettext("%(email)s is not a valid e-mail address."),
        "email_not_public": gettext(
            "We cannot write to %(email)s: give a mailbox on a public domain, such as "
            "name@example.com."
        ),
        "email_too_long": gettext(
            "The part of %(email)s before the @ is too long: mail servers take at most 64 "
            "characters."
        ),
        "phone_invalid": gettext(
            "%(phone)s is not a phone number we recognise. Give it with its country code, "
            "e.g. +1 406 555 0123."
        ),
        "phone_not_mobile": gettext(
            "%(phone)s cannot get our text messages: only mobile numbers can (not "
            "premium-rate, shared-cost, personal, pager, voicemail or satellite numbers). "
            "You can sign up by e-mail instead."
        ),
        "phone_abroad": gettext(
            "Sign-up by text message is open to mobile numbers of %(countries)s only, and "
            "%(phone)s is not one. You can sign up by e-mail instead."
        ),
        "sms_off": gettext(
            "Sign-up by text message is not offered here. You can sign up by e-mail."
        ),
    }
    return words.get(code) or gettext(
        "Notices and conditions by e-mail or text message. We send a confirmation first; "
        "nothing is sent until you confirm."
    )


def country_names(codes: list[str], language: str) -> str:
    """`Canada, United States` for [CA, US], in the page's language (phonenumbers' names)."""
    names = [
        geocoder.country_name_for_number(phonenumbers.example_number(code), language) or code
        for code in codes
    ]
    return ", ".join(names)


def refusal_words(error: ValidationError, system: TrailSystem) -> list[str]:
    """Each refusal of clean_sign_up in the active language, naming the contact refused: the
    map's sign-up form and its Alerts panel say them."""
    words = []
    for refusal in error.error_list:
        params = refusal.params or {}
        code = refusal.code or ""
        countries = sms_countries(system) if code == "phone_abroad" else []
        if code == "phone_abroad" and not countries:
            code = "sms_off"
        words.append(
            _words_of(code)
            % {
                "email": params.get("email", ""),
                "phone": params.get("phone", ""),
                "countries": country_names(countries, system.language),
            }
        )
    return words


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
        "confirm_url": confirmation_url(token) if token else "",
        "code": code,
    }

    if token:
        send_email(
            "subscriptions/confirm",
            context,
            [pending.email],
            language=system.language,
            about=pending.pk,
        )
    if code:
        context["system_name"] = sms_name(system.name)
        text = render_message("subscriptions/confirm_sms.txt", context, language=system.language)
        try:
            sms.send_sms(pending.phone, text)
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
