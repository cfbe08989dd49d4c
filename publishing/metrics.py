"""Publishing metrics: how long compiles take, how stale a change gets before it is
published, and how many compile requests wait."""

from prometheus_client import Histogram

from core.metrics import DatabaseGauge
from publishing.models import CompileRequest

# A compile of a large system takes about a second; anything near a minute is an incident.
LATENCY_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300)

compile_seconds = Histogram(
    "trails_compile_seconds",
    "Time one compile took to read, render and store a system's published file.",
    buckets=LATENCY_BUCKETS,
)
publish_delay_seconds = Histogram(
    "trails_publish_delay_seconds",
    "Time from the oldest change a compile served to its file being published.",
    buckets=LATENCY_BUCKETS,
)


def pending_compile_requests():
    pending = CompileRequest.objects.pending()
    yield (), pending.count()


DatabaseGauge(
    "trails_pending_compile_requests",
    "Compile requests recorded and not yet served by a compile.",
    [],
    pending_compile_requests,
)
