"""The one entry point every write calls: record a compile request, enqueue it after commit."""

import logging

from django.db import transaction

from publishing.models import CompileRequest

logger = logging.getLogger(__name__)


def request_compile(system_or_id, reason: str = "") -> CompileRequest:
    """Record a compile request in the caller's transaction (the outbox) and queue a compile
    once that transaction commits. A broker outage delays the compile; the beat sweep
    re-enqueues pending requests, so the change is never lost."""
    system_id = getattr(system_or_id, "pk", system_or_id)
    compile_request = CompileRequest.objects.create(trail_system_id=system_id, reason=reason)
    transaction.on_commit(lambda: enqueue_compile(system_id))
    return compile_request


def enqueue_compile(system_id: str) -> None:
    """Never fails the caller: the write is committed and its request stays pending until a
    compile serves it, so a broker error (or, in-process, a compile error) only delays it."""
    from publishing.tasks import compile_system

    try:
        compile_system.delay(system_id)
    except Exception:
        logger.exception("compile of %s not queued; the sweep will retry it", system_id)
