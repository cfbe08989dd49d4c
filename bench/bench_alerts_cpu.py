"""The alerts worker's CPU per push message, in-process: MESSAGES alerts of one trail's
followers on one push service, fanned out and then sent by this process as the alerts worker
sends a key's share (alerts.delivery), to a push service stand-in in a process of its own
(bench.push_service, answering at once on a kept-alive connection; the first requests' JWT
verified and payload decrypted). The sending thread's CPU time alone: a figure the machine's
other load barely moves, quick to repeat after a change (`bench/run.py bench_alerts_cpu`)."""

import os
import time

from bench.bench_alerts import _close, _followers, verified
from bench.push_service import PushService

MESSAGES = int(os.environ.get("BENCH_ALERTS_CPU_MESSAGES", "2000"))


def measure() -> dict[str, dict]:
    from django.test import override_settings
    from django.utils import timezone

    from alerts import delivery, fanout
    from alerts.models import Alert
    from alerts.services import manage_url
    from alerts.vapid import generate_keys
    from core.fairqueue import Share
    from tests.factories import TrailFactory, TrailSystemFactory

    push_service = PushService()
    origin = push_service.origin
    private_key, public_key = generate_keys()
    keys = {"VAPID_PRIVATE_KEY": private_key, "VAPID_PUBLIC_KEY": public_key}
    try:
        with override_settings(WEB_PUSH_EXTRA_HOSTS=["127.0.0.1"], **keys):
            system = TrailSystemFactory(name="Bench Alerts CPU")
            trail = TrailFactory(trail_system=system, status="Open")
            _followers(system, [(f"{origin}/cpu/{n}", trail.pk) for n in range(MESSAGES)])
            _close(trail)
            cpu = time.thread_time()
            fanout.fan_out(system.pk)
            fan_out_cpu = time.thread_time() - cpu
            manage_url("warm")  # the URL resolver, built once per process
            lanes = [key for _, key in delivery.due_keys(timezone.now())]
            started, cpu = time.monotonic(), time.thread_time()
            for key in lanes:  # the system's lanes one after another, in this one thread
                while delivery.send_share(key, Share(quantum=3600.0)).attempts:
                    pass
            send_cpu, wall = time.thread_time() - cpu, time.monotonic() - started
        checked = verified(push_service, public_key)
    finally:
        push_service.close()
    sent = Alert.objects.filter(follower__trail_system=system, state=Alert.State.SENT).count()
    return {
        "alerts worker CPU per push message (in-process)": {
            "messages sent": sent,
            "fan-out CPU per message (ms)": round(1000 * fan_out_cpu / MESSAGES, 3),
            "sending CPU per message (ms)": round(1000 * send_cpu / MESSAGES, 3),
            "messages per second, one sending thread": round(sent / wall),
            "first requests' JWT verified and payload decrypted": checked,
        }
    }


def run() -> dict[str, dict]:
    return measure()
