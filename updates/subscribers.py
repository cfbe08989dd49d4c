"""Subscribers: validation and creation shared by the command, the admin and any sign-up page."""

from collections.abc import Mapping

import phonenumbers
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.utils import timezone

from core.actors import Actor
from trails.models import TrailSystem
from updates.models import Subscriber


def normalize_email(email: str) -> str:
    email = email.strip()
    if not email:
        return ""
    try:
        validate_email(email)
    except ValidationError:
        raise ValidationError(f"{email!r} is not a valid email address.") from None
    local, _, domain = email.rpartition("@")
    return f"{local}@{domain.lower()}"


def normalize_phone(phone: str) -> str:
    """E.164 (`+15551234567`); numbers must carry their country code."""
    phone = phone.strip()
    if not phone:
        return ""
    message = f"{phone!r} is not a valid phone number in E.164 form, such as +14065551234."
    if not phone.startswith("+"):
        raise ValidationError(message)
    try:
        number = phonenumbers.parse(phone, None)
    except phonenumbers.NumberParseException:
        raise ValidationError(message) from None
    if not phonenumbers.is_valid_number(number):
        raise ValidationError(message)
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)


def clean_contact(
    system: TrailSystem, *, email: str = "", phone: str = "", exclude_id: str | None = None
) -> tuple[str, str]:
    """Normalized (email, phone): at least one, each valid, neither already subscribed to
    this system. Someone who unsubscribed may subscribe again."""
    email, phone = normalize_email(email), normalize_phone(phone)
    if not email and not phone:
        raise ValidationError("Give an email address, a phone number, or both.")
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
def change_subscriber(*, subscriber: Subscriber, changes: Mapping) -> None:
    """The web app's edit: contact details (checked like a new subscription) or the date the
    person unsubscribed."""
    changes = dict(changes)
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
