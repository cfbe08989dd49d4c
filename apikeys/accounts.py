"""Linking an invited account to the Firebase identity of the person it was made for.

An invitation (apikeys.services.invite_member) makes an account under a random uid before its
holder has a Firebase account. Their first Firebase sign-in carries a different uid; without a
link the person would end up with two accounts and their role on the first. So the first
Firebase sign-in whose token proves the address (`email_verified`) takes over the one pending
invited account with that address: the account is re-keyed to the Firebase uid, and everything
that names it follows. An unverified address never links (anyone may claim any address in
Firebase Auth without proving it).
"""

from django.apps import apps
from django.core.exceptions import FieldDoesNotExist
from django.db import models, transaction

from apikeys.models import User

# The columns that record an account's uid as text (audit stamps, status history, grooming
# passes), on whichever model has them.
ACTOR_UID_FIELDS = ("created_by", "updated_by", "trashed_by", "uid")


def claim_invited_account(*, uid: str, email: str) -> User | None:
    """The pending invited account of `email`, now keyed by the Firebase `uid`; None when no
    single pending account has that address, or when `uid` already has an account.

    The caller has checked that the token's e-mail address is verified.
    """
    if not email:
        return None
    with transaction.atomic():
        pending = list(
            User.objects.select_for_update()
            .filter(email__iexact=email, invitation_pending=True, is_active=True)
            .order_by("pk")
        )
        if len(pending) != 1 or User.objects.filter(pk=uid).exists():
            return None
        return _rekey(pending[0], uid)


def _rekey(user: User, uid: str) -> User:
    """Move the account to a new primary key: a copy under `uid`, every reference moved to it,
    the old row deleted."""
    old_uid = user.pk
    claimed = User(
        **{
            field.attname: getattr(user, field.attname)
            for field in User._meta.concrete_fields
            if not field.primary_key
        }
    )
    claimed.uid = uid
    claimed.invitation_pending = False
    claimed.save(force_insert=True)
    for relation in User._meta.related_objects:
        if relation.one_to_many or relation.one_to_one:
            relation.related_model._base_manager.filter(**{relation.field.name: old_uid}).update(
                **{relation.field.name: uid}
            )
    for field in User._meta.many_to_many:
        through = field.remote_field.through
        column = field.m2m_field_name()
        through._base_manager.filter(**{column: old_uid}).update(**{column: uid})
    for model in apps.get_models():
        if model is User:
            continue
        for name in ACTOR_UID_FIELDS:
            if _has_uid_column(model, name):
                model._base_manager.filter(**{name: old_uid}).update(**{name: uid})
    User.objects.filter(pk=old_uid).delete()
    return claimed


def _has_uid_column(model: type[models.Model], name: str) -> bool:
    try:
        field = model._meta.get_field(name)
    except FieldDoesNotExist:
        return False
    return isinstance(field, models.CharField) and field.concrete
