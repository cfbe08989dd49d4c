"""The compile outbox: every write's compile request, recorded in the write's transaction and
queued once that transaction commits, unless a compile is already coming for the system. Also
a deleted system's unpublishing, queued once its deletion commits."""

from datetime import timedelta

from django.db import transaction
from django.db.models import Q

from core import queueing
from publishing.models import CompileRequest
from publishing.publisher import wait_for_compile
from publishing.tasks import enqueue_compile, enqueue_listing_rebuild, enqueue_unpublish

# A pending request older than this is taken as one whose compile was lost (broker down, a
# compile that failed), so a newer write queues a compile of its own rather than rely on it.
TRUST_PENDING_FOR = timedelta(seconds=10)


def compile_is_coming(compile_request: CompileRequest) -> bool:
    """Whether an older request of the system, recent enough to trust, is still pending: the
    compile queued for it has not committed yet, so it, or the compile it queues after its
    commit for what arrived meanwhile, reads this request too (tasks.compile_system). One
    queued task per system instead of one per write keeps the worker free for compiles."""
    asked = compile_request.requested_on
    return (
        CompileRequest.objects.pending()
        .filter(trail_system_id=compile_request.trail_system_id)
        .filter(requested_on__gte=asked - TRUST_PENDING_FOR)
        .filter(Q(requested_on__lt=asked) | Q(requested_on=asked, pk__lt=compile_request.pk))
        .exists()
    )


def queue_compile(compile_request: CompileRequest) -> None:
    if not compile_is_coming(compile_request):
        enqueue_compile(compile_request.trail_system_id)


def record_compile_request(system_or_id, reason: str = "") -> CompileRequest:
    """Record a compile request in the caller's transaction (the outbox) and queue a compile
    once that transaction commits. A broker outage delays the compile; the beat sweep
    re-enqueues pending requests, so the change is never lost."""
    system_id = getattr(system_or_id, "pk", system_or_id)
    compile_request = CompileRequest.objects.create(trail_system_id=system_id, reason=reason)
    # A failed check only leaves the request to the sweep.
    queueing.on_commit(lambda: queue_compile(compile_request))
    return compile_request


def on_compile_requested(sender, *, system_id: str, reason: str, **kwargs) -> None:
    """Receiver of core.compiles.compile_requested."""
    record_compile_request(system_id, reason)


def compile_now(system_or_id) -> CompileRequest:
    """POST /trail-systems/:id/compile: a compile request of its own, queued on commit."""
    with transaction.atomic():
        return record_compile_request(system_or_id, "requested through the API")


def on_unpublish_requested(sender, *, system_id: str, **kwargs) -> None:
    """Receiver of core.compiles.unpublish_requested, in the deleting transaction: a running
    compile of the system ends first (none can follow: its requests go with the system), and
    once the deletion commits its files are removed and the all-systems file rebuilt."""
    wait_for_compile(system_id)
    queueing.on_commit(lambda: enqueue_unpublish(system_id))


def on_listing_changed(sender, **kwargs) -> None:
    """Receiver of core.compiles.listing_changed, in the writing transaction."""
    queueing.on_commit(enqueue_listing_rebuild)
