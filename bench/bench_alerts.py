"""Riders' alerts on the production topology's workers: a Celery worker (2 processes) for the
default queue and the alerts worker (its pool as the Procfile runs it), pushing to a push
service stand-in of the bench's own on 127.0.0.1 (bench.push_service: an asyncio server in a
process of its own, answering 201 at once), VAPID-signed and encrypted (aes128gcm) by
pywebpush as for a real push service: the first requests' JWT is verified and their payload
decrypted, as a push service and a browser would.

Latency: from the commit of a trail's status change to its push request arriving (100
changes at 5 per second, each trail followed by a rider of its own, so none is coalesced).
Throughput: one trail followed by FOLLOWERS push subscriptions of one push service, closed
once: from the commit to the last push request, and the alerts worker's CPU per message
(user and system time of its process: a figure the machine's other load does not inflate)."""

import os
import statistics
import tempfile
import time
from functools import cache
from pathlib import Path
from types import SimpleNamespace

from bench.common import cpu_seconds, percentile, real_broker

LATENCY_CHANGES = 100
LATENCY_RATE = 5.0  # changes per second
FOLLOWERS = int(os.environ.get("BENCH_ALERTS_FOLLOWERS", "100000"))
TIMEOUT_SECONDS = 900
CHUNK = 5000


@cache
def _browser():
    """One browser's subscription keys, shared by every bench subscription: each message is
    still encrypted for it with a key pair of its own, as for distinct browsers."""
    from tests.alerts.push_service import Subscription

    return Subscription.to(SimpleNamespace(url=""))


def verified(push_service, public_key: str) -> str:
    """The stand-in's first requests checked as a push service and a browser would: the
    VAPID JWT against the service's public key, the payload decrypted with the browser's."""
    from tests.alerts.push_service import verified_claims

    samples = push_service.samples()
    for request in samples:
        verified_claims(request, public_key)
        _browser().decrypt(request)
    return f"{len(samples)} of {len(samples)}"


def _followers(system, endpoints: list[tuple[str, str | None]]) -> None:
    """Push followers of `system`, each following its trail's (or the system's) closures and
    openings, written in bulk: the bench measures sending, not signing up."""
    from django.utils import timezone

    from alerts.models import Channel, Follower, Rule
    from core.ids import new_id

    keys = _browser().json()["keys"]
    now = timezone.now()
    for start in range(0, len(endpoints), CHUNK):
        followers = [
            Follower(
                id=new_id(),
                trail_system=system,
                channel=Channel.PUSH,
                endpoint=endpoint,
                p256dh=keys["p256dh"],
                auth=keys["auth"],
                confirmed_on=now,
            )
            for endpoint, _ in endpoints[start : start + CHUNK]
        ]
        Follower.objects.bulk_create(followers)
        Rule.objects.bulk_create(
            Rule(follower=follower, trail_id=trail_id, on=["opens", "closes"])
            for follower, (_, trail_id) in zip(
                followers, endpoints[start : start + CHUNK], strict=True
            )
        )


def _close(trail) -> float:
    from django.db import transaction

    from core.actors import Actor, Via
    from trails.services import change_trail

    status = "Closed" if trail.status != "Closed" else "Open"
    with transaction.atomic():
        change_trail(trail=trail, status=status, actor=Actor("bench", Via.API_KEY))
    return time.monotonic()


def _wait(push_service, count: int, log_path: Path) -> None:
    deadline = time.monotonic() + TIMEOUT_SECONDS
    while (arrived := push_service.count()) < count:
        if time.monotonic() > deadline:
            raise RuntimeError(
                f"{arrived} of {count} pushes after {TIMEOUT_SECONDS}s; see {log_path}"
            )
        time.sleep(0.1)


def measure() -> dict[str, dict]:
    from django.conf import settings

    from bench.push_service import PushService
    from tests.factories import TrailFactory, TrailSystemFactory
    from tests.integration.conftest import Worker
    from tests.integration.topology import procfile_pool

    log_path = Path(tempfile.gettempdir()) / "bench-alerts.log"
    from alerts.vapid import generate_keys

    private_key, public_key = generate_keys()
    environment = {
        "WEB_PUSH_EXTRA_HOSTS": "127.0.0.1",
        "VAPID_PRIVATE_KEY": private_key,
        "VAPID_PUBLIC_KEY": public_key,
    }
    worker = Worker(settings.MEDIA_ROOT, log_path, environment=environment)
    alerts_worker = Worker(settings.MEDIA_ROOT, log_path, environment=environment, alerts=True)
    push_service = PushService()
    origin = push_service.origin
    worker.start()
    alerts_worker.start()
    try:
        system = TrailSystemFactory(name="Bench Alerts, a rider per trail")
        trails = [TrailFactory(trail_system=system, status="Open") for _ in range(LATENCY_CHANGES)]
        _followers(system, [(f"{origin}/push/{trail.pk}", trail.pk) for trail in trails])
        committed = {}
        started = time.monotonic()
        for n, trail in enumerate(trails):
            committed[trail.pk] = _close(trail)
            time.sleep(max(0.0, started + (n + 1) / LATENCY_RATE - time.monotonic()))
        _wait(push_service, LATENCY_CHANGES, log_path)
        arrived = {path.rsplit("/", 1)[1]: at for at, path in push_service.received()}
        latencies = [arrived[trail_id] - at for trail_id, at in committed.items()]

        crowded = TrailSystemFactory(name="Bench Alerts, one trail, many riders")
        trail = TrailFactory(trail_system=crowded, status="Open")
        _followers(crowded, [(f"{origin}/many/{n}", trail.pk) for n in range(FOLLOWERS)])
        before = push_service.count()
        cpu_before = cpu_seconds([alerts_worker.process.pid])
        closed = _close(trail)
        _wait(push_service, before + FOLLOWERS, log_path)
        cpu = cpu_seconds([alerts_worker.process.pid]) - cpu_before
        last = max(at for at, _ in push_service.received(before))
        checked = verified(push_service, public_key)
    finally:
        alerts_worker.stop()
        worker.stop()
        push_service.close()
    return {
        "alert latency, commit to push request": {
            "set-up": f"celery worker 2 processes and alerts worker "
            f"{' '.join(procfile_pool('alerts'))}, PostgreSQL, "
            f"Redis, push service stand-in on 127.0.0.1; {LATENCY_CHANGES} trail status "
            f"changes at {LATENCY_RATE:g}/s, a rider per trail; load average "
            f"{os.getloadavg()[0]:.1f} at the end",
            "pushes": len(latencies),
            "commit to push request, p50 (s)": round(statistics.median(latencies), 3),
            "commit to push request, p95 (s) (target <= 2)": round(percentile(latencies, 0.95), 3),
            "commit to push request, max (s)": round(max(latencies), 3),
        },
        "alert throughput, one trail and its followers": {
            "followers (push subscriptions of one push service)": FOLLOWERS,
            "commit to last push request (s) (target <= 60)": round(last - closed, 1),
            "pushes per second": round(FOLLOWERS / (last - closed)),
            "alerts worker CPU per message (ms)": round(1000 * cpu / FOLLOWERS, 2),
            "load average at the end": round(os.getloadavg()[0], 1),
            "first requests' JWT verified and payload decrypted": checked,
        },
    }


def run() -> dict[str, dict]:
    with real_broker("bench-alerts"):
        return measure()
