"""Background work of the trails app."""

from celery import shared_task

from trails.elevations import ElevationError, store_elevations


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
