"""Accounts and API keys: every write of either (business rules; the API, the web app's
sign-in and pages, and the commands call these)."""

import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from apikeys import keys
from apikeys.accounts import claim_invited_account
from apikeys.credentials import Credential
from apikeys.models import ApiKey, User
from core.actors import Actor
from core.errors import Forbidden, Invalid, NotAuthenticated, NotFound
from core.text import check_single_line
from core.unset import UNSET, given
from trails import services as trail_services
from trails.models import TrailSystem
from trails.selectors import managed_systems

MAX_ACTIVE_KEYS = 25
# How stale a key's lastUsedOn may be: refreshed at most this often, not on every request.
LAST_USED_REFRESH = timedelta(minutes=5)


# Accounts


def account_for_identity(*, uid: str, email: str = "", email_verified: bool = False) -> User:
    """The account of a verified identity (an ID token's claims, a development token), made
    the first time the uid is seen, unless a verified address takes over the pending invited
    account of that address (apikeys.accounts); the identity's e-mail address, when it has
    one, replaces the stored one. A disabled account is refused. Every token-authenticated
    request asks, so a known account with the same address costs one read and opens no
    transaction.

    Only a verified address is stored: invitations and sign-in links find accounts by address,
    and Firebase lets anyone register any address without proving it."""
    if not email_verified:
        email = ""
    user = User.objects.filter(uid=uid).first()
    if user is None and email_verified:
        user = claim_invited_account(uid=uid, email=email)
    if user is not None and not user.is_active:
        raise NotAuthenticated("invalid_token", "This account is disabled.")
    if user is None or (email and user.email != email):
        with transaction.atomic():
            user, created = User.objects.select_for_update().get_or_create(
                uid=uid, defaults={"email": email}
            )
            if not created and email and user.email != email:
                User.objects.filter(pk=user.pk).update(email=email)
                user.email = email
    return user


@transaction.atomic
def set_super_admin(*, uid: str, super_admin: bool) -> User:
    """Flag an account as superAdmin (made if missing), or clear the flag of an existing one."""
    if super_admin:
        user = User.objects.get_or_create(uid=uid)[0]
    else:
        user = User.objects.filter(uid=uid).first()
        if user is None:
            raise NotFound("account_not_found", f"No account with uid {uid}.")
    User.objects.filter(pk=user.pk).update(is_super_admin=super_admin)
    user.is_super_admin = super_admin
    return user


def ensure_account(*, uid: str, email: str = "") -> User:
    """The account with this uid, made if missing; the address given is stored only where the
    account has none (the demo's owner: a real sign-in's own address wins)."""
    with transaction.atomic():
        user = User.objects.get_or_create(uid=uid, defaults={"email": email})[0]
        if email and not user.email:
            User.objects.filter(pk=user.pk, email="").update(email=email)
            user.email = email
    return user


@transaction.atomic
def create_account(
    *,
    uid: str,
    email: str = "",
    is_super_admin: bool = False,
    is_staff: bool = False,
    is_superuser: bool = False,
    is_active: bool = True,
) -> User:
    """An account made by an operator (the web app's account page), without a password."""
    return User.objects.create_user(
        uid,
        email=email,
        is_super_admin=is_super_admin,
        is_staff=is_staff,
        is_superuser=is_superuser,
        is_active=is_active,
    )


@transaction.atomic
def change_account(
    *,
    user: User,
    email: str = UNSET,
    is_super_admin: bool = UNSET,
    is_staff: bool = UNSET,
    is_superuser: bool = UNSET,
    is_active: bool = UNSET,
) -> None:
    """An operator's change of an account: one UPDATE of only the columns given."""
    changes = given(
        email=email,
        is_super_admin=is_super_admin,
        is_staff=is_staff,
        is_superuser=is_superuser,
        is_active=is_active,
    )
    if changes:
        User.objects.filter(pk=user.pk).update(**changes)


@transaction.atomic
def delete_account(*, user: User, actor: Actor) -> None:
    """Removed for good with its keys and roles (an owner of a system cannot be: PROTECT)."""
    User.objects.filter(pk=user.pk).delete()


@dataclass(frozen=True)
class Invitation:
    user: User
    created: bool  # a new account was made for the address


@transaction.atomic
def invite_member(*, system: TrailSystem, email: str, role: str, actor: Actor) -> Invitation:
    """Give the account with this address (made now if there is none) a role on the system.

    A new account gets a random uid and waits for its holder's first Firebase sign-in, which
    takes it over (apikeys.accounts); until then they sign in with an e-mailed link (the caller
    sends it once this transaction commits).
    """
    email = User.objects.normalize_email(email.strip())
    user = User.objects.filter(email__iexact=email, is_active=True).order_by("date_joined").first()
    created = user is None
    if created:
        user = User.objects.create_user(secrets.token_hex(14), email, invitation_pending=True)
    trail_services.set_member(system=system, user_id=user.pk, role=role, actor=actor)
    return Invitation(user, created)


# API keys


@dataclass(frozen=True)
class NewKey:
    """A key just made; `plaintext` exists only here and in the create response."""

    key: ApiKey
    plaintext: str


def active_keys(user: User) -> QuerySet[ApiKey]:
    now = timezone.now()
    return ApiKey.objects.filter(user=user, revoked=False).filter(
        Q(expires_at__isnull=True) | Q(expires_at__gt=now)
    )


def checked_system_ids(user: User, system_ids: list[str] | None) -> list[str] | None:
    """The restriction as given (duplicates dropped) when the caller manages every system;
    naming another is an authorization matter (403 forbidden, spec section 7), as for any
    request about a system the caller does not manage."""
    if system_ids is None:
        return None
    unique = list(dict.fromkeys(system_ids))
    managed = set(managed_systems(user).filter(pk__in=unique).values_list("pk", flat=True))
    for system_id in unique:
        if system_id not in managed:
            raise Forbidden(
                "forbidden",
                f"you do not manage trail system {system_id}.",
                field="trail_system_ids",
            )
    return unique


def create_key(
    *,
    user: User,
    name: str,
    scopes: list[str] | None = None,
    trail_system_ids: list[str] | None = None,
    expires_in_days: int | None = None,
) -> NewKey:
    check_single_line({"name": name}, "name")
    system_ids = checked_system_ids(user, trail_system_ids)
    plaintext = keys.generate_key()
    now = timezone.now()
    with transaction.atomic():
        # Lock the account row so that two concurrent creates cannot both pass the limit.
        User.objects.select_for_update().filter(pk=user.pk).first()
        if active_keys(user).count() >= MAX_ACTIVE_KEYS:
            raise Invalid(
                "too_many_keys",
                f"An account may hold {MAX_ACTIVE_KEYS} active keys; revoke one first.",
            )
        key = ApiKey.objects.create(
            user=user,
            name=name,
            prefix=plaintext[: keys.VISIBLE_PREFIX_LENGTH],
            digest=keys.digest(plaintext),
            scopes=keys.normalized_scopes(scopes),
            trail_system_ids=system_ids,
            created_on=now,
            expires_at=now + timedelta(days=expires_in_days) if expires_in_days else None,
        )
    return NewKey(key, plaintext)


def record_key_use(*, key: ApiKey) -> None:
    """Refresh the key's lastUsedOn at most once per LAST_USED_REFRESH: one conditional
    UPDATE (its own transaction), so concurrent requests never race."""
    now = timezone.now()
    threshold = now - LAST_USED_REFRESH
    if key.last_used_on is not None and key.last_used_on > threshold:
        return
    ApiKey.objects.filter(pk=key.pk).filter(
        Q(last_used_on__isnull=True) | Q(last_used_on__lte=threshold)
    ).update(last_used_on=now)


def list_keys(user: User) -> QuerySet[ApiKey]:
    """Every key of the account, newest first, revoked and expired ones included."""
    return ApiKey.objects.filter(user=user).order_by("-created_on", "-pk")


@transaction.atomic
def revoke_key(*, user: User | None, key_id: str) -> ApiKey:
    """Revoke one of the caller's own keys (any key when `user` is None: the web app's
    operators), at once and for good; revoking twice is harmless."""
    keys_of = ApiKey.objects.all() if user is None else ApiKey.objects.filter(user=user)
    key = keys_of.filter(pk=key_id).first()
    if key is None:
        raise NotFound("key_not_found", f"You have no key {key_id}.")
    if not key.revoked:
        now = timezone.now()
        ApiKey.objects.filter(pk=key.pk, revoked=False).update(revoked=True, revoked_on=now)
        key.revoked, key.revoked_on = True, now
    return key


def account_summary(user: User, credential: Credential) -> dict:
    """GET /me: who is calling and with what."""
    key = credential.key
    return {
        "uid": user.uid,
        "email": user.email,
        "auth_type": credential.auth_type,
        "scopes": list(credential.scopes),
        "super_admin": user.is_super_admin,
        "key": None
        if key is None
        else {
            "id": key.pk,
            "name": key.name,
            "prefix": key.prefix,
            "trail_system_ids": key.trail_system_ids,
        },
    }
