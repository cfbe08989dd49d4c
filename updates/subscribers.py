"""Subscribers: validation and creation shared by the command, the admin and any sign-up page."""

from collections.abc import Collection
from datetime import datetime

import phonenumbers
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.utils import timezone

from core.actors import Actor
from core.unset import UNSET, given
from trails.models import TrailSystem
from updates.models import Subscriber

# RFC 5321: a mailbox's local part is at most 64 octets.
LOCAL_PART_MAX = 64
# Number types that receive text messages at the normal price (phonenumbers' classification):
# never premium-rate, shared-cost, personal, UAN, pager, voicemail, toll-free or fixed lines.
SMS_NUMBER_TYPES = frozenset(
    {phonenumbers.PhoneNumberType.MOBILE, phonenumbers.PhoneNumberType.FIXED_LINE_OR_MOBILE}
)
# phonenumbers' region of the non-geographic codes (+800, +808, +870, +881, +882, +883...):
# satellite phones and international networks, the usual targets of revenue-share fraud.
NON_GEOGRAPHIC_REGION = "001"


def normalize_email(email: str) -> str:
    """A public mailbox, domain in lower case. Refused (each with its ValidationError code): a
    malformed address, a domain without a dot (`a@localhost`) or an address literal
    (`a@[127.0.0.1]`), which reach the service's own or internal hosts, and a local part
    longer than any mail server takes."""
    email = email.strip()
    if not email:
        return ""
    params = {"email": email}
    try:
        validate_email(email)
    except ValidationError:
        raise ValidationError(
            f"{email!r} is not a valid email address.", code="email_invalid", params=params
        ) from None
    local, _, domain = email.rpartition("@")
    if len(local.encode()) > LOCAL_PART_MAX:
        raise ValidationError(
            f"The part of {email!r} before the @ is longer than {LOCAL_PART_MAX} characters.",
            code="email_too_long",
            params=params,
        )
    if domain.startswith("[") or "." not in domain.strip("."):
        raise ValidationError(
            f"{email!r} is not a public mailbox: its domain must be a name with a dot, "
            "such as example.com.",
            code="email_not_public",
            params=params,
        )
    return f"{local}@{domain.lower()}"


def normalize_phone(phone: str) -> str:
    """E.164 (`+15551234567`); numbers must carry their country code."""
    phone = phone.strip()
    if not phone:
        return ""
    error = ValidationError(
        f"{phone!r} is not a valid phone number in E.164 form, such as +14065551234.",
        code="phone_invalid",
        params={"phone": phone},
    )
    if not phone.startswith("+"):
        raise error
    try:
        number = phonenumbers.parse(phone, None)
    except phonenumbers.NumberParseException:
        raise error from None
    if not phonenumbers.is_valid_number(number):
        raise error
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)


def check_sms_number(phone: str, countries: Collection[str] | None = None) -> None:
    """A normalized number that may get text messages: a mobile number (by its phonenumbers
    type) of a country, and of one of `countries` when they are given. Raises
    ValidationError `phone_not_mobile` or `phone_abroad` (params: phone, countries)."""
    number = phonenumbers.parse(phone, None)
    region = phonenumbers.region_code_for_number(number)
    params = {"phone": phone, "countries": ", ".join(countries or ())}
    if region == NON_GEOGRAPHIC_REGION or phonenumbers.number_type(number) not in SMS_NUMBER_TYPES:
        raise ValidationError(
            f"{phone} cannot receive our text messages: only mobile numbers can (not "
            "premium-rate, shared-cost, personal, pager, voicemail or satellite numbers).",
            code="phone_not_mobile",
            params=params,
        )
    if countries is not None and region not in countries:
        raise ValidationError(
            f"{phone} is not a number of {params['countries'] or 'an allowed country'}.",
            code="phone_abroad",
            params=params,
        )


def clean_contact(
    system: TrailSystem, *, email: str = "", phone: str = "", exclude_id: str | None = None
) -> tuple[str, str]:
    """Normalized (email, phone): at least one, each valid, neither already subscribed to
    this system. Someone who unsubscribed may subscribe again."""
    email, phone = normalize_email(email), normalize_phone(phone)
    if not email and not phone:
        raise ValidationError("Give an email address, a phone number, or both.")
    if phone:
        check_sms_number(phone)
    active = Subscriber.objects.filter(trail_system=system, unsubscribed_on__isnull=True)
    if exclude_id:
        active = active.exclude(pk=exclude_id)
    if email and active.filter(email__iexact=email).exists():
        raise ValidationError(f"{email} is already subscribed to {system.name}.")
    if phone and active.filter(phone=phone).exists():
        raise ValidationError(f"{phone} is already subscribed to {system.name}.")
    return email, phone


@transaction.atomic
def add_subscriber(*, system: TrailSystem, email: str = "", phone: str = "") -> Subscriber:
    email, phone = clean_contact(system, email=email, phone=phone)
    return Subscriber.objects.create(trail_system=system, email=email, phone=phone)


@transaction.atomic
def change_subscriber(
    *,
    subscriber: Subscriber,
    trail_system: TrailSystem = UNSET,
    email: str = UNSET,
    phone: str = UNSET,
    unsubscribed_on: datetime | None = UNSET,
) -> None:
    """The web app's edit: contact details (checked like a new subscription) or the date the
    person unsubscribed (None: subscribed again); only the fields given."""
    changes = given(
        trail_system=trail_system, email=email, phone=phone, unsubscribed_on=unsubscribed_on
    )
    if "email" in changes or "phone" in changes:
        changes["email"], changes["phone"] = clean_contact(
            subscriber.trail_system,
            email=changes.get("email", subscriber.email),
            phone=changes.get("phone", subscriber.phone),
            exclude_id=subscriber.pk,
        )
    Subscriber.objects.filter(pk=subscriber.pk).update(**changes)


@transaction.atomic
def delete_subscriber(*, subscriber: Subscriber, actor: Actor) -> None:
    """Removed for good with its deliveries (the operators' web app); unsubscribing keeps
    the row instead."""
    Subscriber.objects.filter(pk=subscriber.pk).delete()


@transaction.atomic
def unsubscribe(*, token: str) -> Subscriber | None:
    """Mark the subscriber of this token unsubscribed (keeping the first date); None if
    no subscriber has the token."""
    matches = Subscriber.objects.select_related("trail_system").filter(unsubscribe_token=token)
    matches.filter(unsubscribed_on__isnull=True).update(unsubscribed_on=timezone.now())
    return matches.first()


@transaction.atomic
def unsubscribe_phone(*, phone: str) -> int:
    """Unsubscribe every subscription of this number; returns how many changed."""
    return Subscriber.objects.filter(phone=phone, unsubscribed_on__isnull=True).update(
        unsubscribed_on=timezone.now()
    )


@transaction.atomic
def unsubscribe_subscribers(*, subscriber_ids: list[str]) -> int:
    """Stop messages to these subscribers at once (their rows are kept); how many were still
    subscribed."""
    return Subscriber.objects.filter(pk__in=subscriber_ids, unsubscribed_on__isnull=True).update(
        unsubscribed_on=timezone.now()
    )


def active_subscriber_count(system: TrailSystem) -> int:
    """How many subscribers an update posted with notify would reach now."""
    return Subscriber.objects.filter(trail_system=system, unsubscribed_on__isnull=True).count()
