"""Webhook delivery: a real Celery worker (2 processes) posting to receivers of the bench's
own on 127.0.0.1. Latency: from the commit of a trail's status change to its signed
`trail.status_changed` arriving at one endpoint (200 changes at 10 per second). Throughput:
a backlog of 400 changes, each to 10 endpoints, sent by a fresh worker, from the first
delivery received to the last."""

import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from bench.common import cpu_seconds, real_broker

LATENCY_CHANGES = 200
LATENCY_RATE = 10.0  # changes per second
THROUGHPUT_CHANGES = 400
ENDPOINTS = 10
TIMEOUT_SECONDS = 300


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def _changes(trails: list, count: int, rate: float | None) -> dict[str, float]:
    """Close (then reopen, ...) the trails one change each, at `rate` per second (None: as
    fast as they go); returns each change's commit time by trail id and status."""
    from django.db import transaction

    from core.actors import Actor, Via
    from trails.services import change_trail

    actor = Actor("bench", Via.API_KEY)
    committed: dict[str, float] = {}
    started = time.monotonic()
    for n in range(count):
        trail = trails[n % len(trails)]
        status = ("Closed", "Open")[(n // len(trails)) % 2]
        with transaction.atomic():
            change_trail(trail=trail, status=status, actor=actor)
        committed[f"{trail.pk}:{status}"] = time.monotonic()
        if rate:
            time.sleep(max(0.0, started + (n + 1) / rate - time.monotonic()))
    return committed


def _arrivals(receiver) -> dict[str, float]:
    with receiver.lock:
        requests = list(receiver.received)
    arrived = {}
    for request in requests:
        data = json.loads(request.body)["data"]
        arrived.setdefault(f"{data['trailId']}:{data['to']}", request.at)
    return arrived


def _wait(receivers, count: int, log_path: Path) -> None:
    deadline = time.monotonic() + TIMEOUT_SECONDS
    while any(len(receiver.received) < count for receiver in receivers):
        if time.monotonic() > deadline:
            raise RuntimeError(f"deliveries missing after {TIMEOUT_SECONDS}s; see {log_path}")
        time.sleep(0.2)


def measure(queue: str) -> dict[str, dict]:
    from django.conf import settings
    from django.test import override_settings

    from core.actors import Actor, Via
    from tests.factories import TrailFactory, TrailSystemFactory
    from tests.integration.conftest import Worker
    from tests.webhooks.receiver import Receiver
    from webhooks.services import create_endpoint

    actor = Actor("bench", Via.WEB_APP)
    log_path = Path(tempfile.gettempdir()) / f"{queue}.log"
    os.environ["WEBHOOK_ALLOW_PRIVATE_TARGETS"] = "1"  # the receivers are on 127.0.0.1
    worker = Worker(settings.MEDIA_ROOT, log_path)
    receivers = [Receiver() for _ in range(ENDPOINTS)]
    worker.start()
    try:
        with override_settings(WEBHOOK_ALLOW_PRIVATE_TARGETS=True):
            alone = TrailSystemFactory(name="Bench Webhooks, one endpoint")
            create_endpoint(
                system=alone, url=receivers[0].url, events=["trail.status_changed"], actor=actor
            )
            crowded = TrailSystemFactory(name="Bench Webhooks, ten endpoints")
            for receiver in receivers[1:]:
                create_endpoint(
                    system=crowded,
                    url=receiver.url,
                    events=["trail.status_changed"],
                    actor=actor,
                )
            other = Receiver()
            receivers.append(other)
            create_endpoint(
                system=crowded, url=other.url, events=["trail.status_changed"], actor=actor
            )
        trails = [TrailFactory(trail_system=alone, status="Open") for _ in range(100)]
        committed = _changes(trails, LATENCY_CHANGES, LATENCY_RATE)
        _wait(receivers[:1], LATENCY_CHANGES, log_path)
        arrived = _arrivals(receivers[0])
        latencies = [arrived[key] - at for key, at in committed.items()]

        # A backlog (the changes are written while no worker runs), then sent by a fresh
        # worker: from its first delivery to its last, neither the writes' pace nor the
        # worker's start-up counts.
        worker.stop()
        many = receivers[1:]
        trails = [TrailFactory(trail_system=crowded, status="Open") for _ in range(200)]
        _changes(trails, THROUGHPUT_CHANGES, None)
        worker = Worker(settings.MEDIA_ROOT, log_path)
        worker.start()
        cpu_before = cpu_seconds([worker.process.pid])
        _wait(many, THROUGHPUT_CHANGES, log_path)
        times = [request.at for receiver in many for request in receiver.received]
        cpu = cpu_seconds([worker.process.pid]) - cpu_before
        delivered = len(times)
    finally:
        worker.stop()
        for receiver in receivers:
            receiver.close()
    elapsed = max(times) - min(times)
    return {
        "webhook delivery latency, one endpoint": {
            "set-up": f"celery worker 2 processes, PostgreSQL, Redis, receiver on 127.0.0.1; "
            f"{LATENCY_CHANGES} trail status changes at {LATENCY_RATE:g}/s; load average "
            f"{os.getloadavg()[0]:.1f} at the end",
            "deliveries": len(latencies),
            "commit to received, p50 (s)": round(statistics.median(latencies), 3),
            "commit to received, p95 (s) (target <= 2)": round(percentile(latencies, 0.95), 3),
            "commit to received, max (s)": round(max(latencies), 3),
        },
        "webhook throughput, ten endpoints": {
            "changes": THROUGHPUT_CHANGES,
            "endpoints": ENDPOINTS,
            "deliveries": delivered,
            "first delivery to last (s)": round(elapsed, 1),
            "deliveries per second": round(delivered / elapsed),
            "worker CPU per delivery (ms)": round(1000 * cpu / delivered, 2),
        },
    }


def run() -> dict[str, dict]:
    with real_broker("bench-webhooks") as queue:
        return measure(queue)
