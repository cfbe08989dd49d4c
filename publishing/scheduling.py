"""The one entry point every write calls: record a compile request, enqueue it after commit."""

from django.db import transaction

from publishing.models import CompileRequest


def request_compile(system_or_id, reason: str = "") -> CompileRequest:
    """Record a compile request in the caller's transaction (the outbox) and queue a compile
    once that transaction commits. A broker outage delays the compile; the beat sweep
    re-enqueues pending requests, so the change is never lost."""
    system_id = getattr(system_or_id, "pk", system_or_id)
    compile_request = CompileRequest.objects.create(trail_system_id=system_id, reason=reason)
    transaction.on_commit(lambda: enqueue_compile(system_id))
    return compile_request


def enqueue_compile(system_id: str) -> None:
    from publishing.tasks import compile_system

    compile_system.delay(system_id)
