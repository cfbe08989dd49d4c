"""Background compiles. Idempotent: a compile reads the current rows."""

from celery import shared_task
from django.utils import timezone

from publishing.models import CompileRequest


@shared_task(acks_late=True)
def compile_system(system_id: str) -> int:
    """Serve every pending compile request of one system; returns how many were served."""
    return (
        CompileRequest.objects.pending()
        .filter(trail_system_id=system_id)
        .update(done_on=timezone.now())
    )


@shared_task
def sweep_pending_compiles() -> int:
    system_ids = set(CompileRequest.objects.pending().values_list("trail_system_id", flat=True))
    for system_id in system_ids:
        compile_system.delay(system_id)
    return len(system_ids)


@shared_task
def rebuild_all_systems_file() -> None:
    """Rebuilt every 3 hours for the legacy list (publishing issue)."""
