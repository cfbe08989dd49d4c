"""Inviting someone to manage a trail system by e-mail address."""

import secrets
from dataclasses import dataclass

from django.db import transaction

from apikeys.models import User
from core.actors import Actor
from trails import services as trail_services
from trails.models import TrailSystem


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
