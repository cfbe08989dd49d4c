"""Background work of the trails app: elevation profiles, computed after a geometry is set."""

from celery import shared_task
from django.db import transaction

from core.queueing import queue_on_commit
from trails.elevations.provider import ElevationError, get_provider
from trails.elevations.sampling import profile_from_geometry, sample
from trails.models import Trail


def compute_profile(geometry: dict, provider=None) -> list[float]:
    profile = profile_from_geometry(geometry)
    if profile is not None:
        return profile
    points = [(p[1], p[0]) for p in sample(geometry)]
    return [round(v, 1) for v in (provider or get_provider()).elevations(points)]


def store_elevations(trail_id: str, provider=None) -> bool:
    """Compute and store a trail's profile; False if the trail is gone or its geometry
    changed meanwhile (the newer change has queued its own computation)."""
    trail = Trail.objects.filter(pk=trail_id).only("geometry").first()
    if trail is None:
        return False
    profile = compute_profile(trail.geometry, provider)
    with transaction.atomic():
        current = Trail.objects.select_for_update().filter(pk=trail_id).only("geometry").first()
        if current is None or current.geometry != trail.geometry:
            return False
        Trail.objects.filter(pk=trail_id).update(elevations=profile)
    return True


def request_elevations_on_commit(trail_id: str) -> None:
    """Called, after saving, whenever a trail's geometry is set or changed: clears the old
    profile in the caller's transaction and computes the new one once it commits."""
    Trail.objects.filter(pk=trail_id).update(elevations=None)
    queue_on_commit(compute_elevations, trail_id)


@shared_task(
    acks_late=True,
    autoretry_for=(ElevationError,),
    retry_backoff=30,
    retry_backoff_max=1800,
    max_retries=5,
)
def compute_elevations(trail_id: str) -> bool:
    """Compute a trail's elevation profile after its geometry changed; provider failures
    are retried with exponential backoff."""
    return store_elevations(trail_id)
