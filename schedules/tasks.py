"""Beat's pass over the schedules (every SCHEDULE_SWEEP_SECONDS)."""

from celery import shared_task

from schedules.services import apply_due_schedules


@shared_task(acks_late=True)
def apply_schedules() -> int:
    """Apply every change that has fallen due. Safe to run twice at once or again after a
    crash: each occurrence is recorded with its change, under the schedule's lock."""
    return apply_due_schedules()
