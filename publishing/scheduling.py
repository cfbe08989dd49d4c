"""The compile outbox: every write's compile request, recorded in the write's transaction and
queued once that transaction commits."""

from django.db import transaction

from publishing.models import CompileRequest
from publishing.tasks import enqueue_compile


def record_compile_request(system_or_id, reason: str = "") -> CompileRequest:
    """Record a compile request in the caller's transaction (the outbox) and queue a compile
    once that transaction commits. A broker outage delays the compile; the beat sweep
    re-enqueues pending requests, so the change is never lost."""
    system_id = getattr(system_or_id, "pk", system_or_id)
    compile_request = CompileRequest.objects.create(trail_system_id=system_id, reason=reason)
    transaction.on_commit(lambda: enqueue_compile(system_id))
    return compile_request


def on_compile_requested(sender, *, system_id: str, reason: str, **kwargs) -> None:
    """Receiver of core.compiles.compile_requested."""
    record_compile_request(system_id, reason)


def compile_now(system_or_id) -> CompileRequest:
    """POST /trail-systems/:id/compile: a compile request of its own, queued on commit."""
    with transaction.atomic():
        return record_compile_request(system_or_id, "requested through the API")
