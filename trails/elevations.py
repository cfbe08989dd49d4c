"""Trail elevations: 50 evenly spaced metre values along the line (notifications issue)."""

from django.db import transaction


def request_elevations_on_commit(trail_id: str) -> None:
    """Called whenever a trail's geometry is set or changed."""
    transaction.on_commit(lambda: None)
