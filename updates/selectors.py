"""Reads of updates: a fixed number of queries per list, trails without their geometry."""

import hashlib

from django.db.models import Prefetch, QuerySet

from core.errors import NotFound
from trails.models import TrailSystem
from trails.selectors import trails_queryset
from updates.models import PendingSubscription, Subscriber, Update

LIST_LIMIT = 100


def updates_queryset() -> QuerySet[Update]:
    return Update.objects.select_related("trail_system").prefetch_related(
        Prefetch("trails", trails_queryset().order_by("order", "created_on"))
    )


def update_or_404(update_id: str) -> Update:
    update = updates_queryset().filter(pk=update_id).first()
    if update is None:
        raise NotFound("update_not_found", f"No update {update_id!r}.")
    return update


def system_updates(system: TrailSystem, *, include_expired: bool = False) -> list[Update]:
    """Active updates soonest-expiring first; with history, the latest expiry first."""
    updates = updates_queryset().filter(trail_system=system)
    if include_expired:
        updates = updates.order_by("-expiration_date", "-created_on")
    else:
        updates = updates.active().order_by("expiration_date", "created_on")
    return list(updates[:LIST_LIMIT])


def email_token_digest(token: str) -> str:
    """What is stored of an e-mailed confirmation link's token."""
    return hashlib.sha256(token.encode()).hexdigest()


def email_sign_up(token: str, *, for_update: bool = False) -> PendingSubscription | None:
    """The sign-up an e-mailed confirmation link names, with its system, used or not (its
    `email_link_open` says whether the link may still confirm); None for an unknown token."""
    if not token:
        return None
    sign_ups = PendingSubscription.objects.select_related("trail_system", "subscriber")
    if for_update:
        sign_ups = sign_ups.select_for_update(of=("self",))
    return sign_ups.filter(email_token_digest=email_token_digest(token)).first()


def subscriber_by_unsubscribe_token(token: str) -> Subscriber | None:
    """The subscriber an unsubscribe link names, subscribed or not, with its system."""
    return Subscriber.objects.select_related("trail_system").filter(unsubscribe_token=token).first()
