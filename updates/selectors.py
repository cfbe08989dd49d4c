"""Reads of updates: a fixed number of queries per list, trails without their geometry."""

from django.db.models import Prefetch, QuerySet

from core.errors import NotFound
from trails.models import TrailSystem
from trails.selectors import trails_queryset
from updates.models import Update

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
