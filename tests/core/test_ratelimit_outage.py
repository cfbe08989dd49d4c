"""The cache is no single point of failure for anonymous writes (issue 40 item 2): with Redis
stopped, the rate limits count in the process with the same bounds, positions and reports are
kept, and a request that can be counted nowhere is answered 503 with Retry-After, never 500.
The Redis stopped here is a private redis-server; the shared one is never touched."""

import pytest
from django.db import connection
from django.utils import timezone

from core import ratelimit
from core.actors import Actor, Via
from grooming.models import TrackerPosition
from grooming.trackers import create_tracker
from reports.models import Report
from tests.factories import TrailFactory, TrailSystemFactory, line
from tests.integration.topology import PrivateRedis
from tests.ports import free_port
from tests.public.test_tracker_ingestion import post_through_asgi

pytestmark = [pytest.mark.integration, pytest.mark.django_db]


@pytest.fixture
def redis_down(settings, monkeypatch):
    """The cache on a private redis-server, stopped; this test's own in-process counters."""
    redis = PrivateRedis(free_port())
    redis.start()
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": redis.url,
            "OPTIONS": {"socket_connect_timeout": 1.0, "socket_timeout": 1.0},
        }
    }
    monkeypatch.setattr(ratelimit, "_in_process", ratelimit._InProcess(ratelimit.FALLBACK_COUNTERS))
    redis.stop()
    return monkeypatch


@pytest.fixture
def system():
    system = TrailSystemFactory()
    TrailFactory(trail_system=system, geometry=line(-113.95, 45.69))
    return system


def report(client, system, address: str, n: int = 0):
    return client.post(
        f"/report/{system.pk}",
        {"category": "fallenTree", "lat": f"{45.690 + n * 0.0012:.4f}", "lng": "-113.9495"},
        HTTP_ACCEPT="application/json",
        REMOTE_ADDR=address,
    )


def test_with_redis_down_reports_are_kept_and_each_client_stays_bounded(client, system, redis_down):
    statuses = [report(client, system, "198.51.100.7", n).status_code for n in range(7)]

    assert statuses == [201] * 5 + [429] * 2
    assert Report.objects.count() == 5
    assert report(client, system, "198.51.100.8", 9).status_code == 201


def test_with_redis_down_a_trackers_positions_are_kept(client, system, redis_down):
    secret = create_tracker(
        system=system, name="PistenBully", actor=Actor(system.owner.uid, Via.ID_TOKEN)
    ).secret
    now = int(timezone.now().timestamp())
    statuses = [
        client.get(
            "/track/osmand",
            {"id": secret, "lat": 45.69 + n * 0.0001, "lon": -113.95, "timestamp": now - 10 + n},
        ).status_code
        for n in range(3)
    ]

    assert statuses == [200] * 3
    assert TrackerPosition.objects.count() == 3


def test_when_no_request_can_be_counted_the_answer_is_503_with_retry_after(
    client, system, redis_down
):
    redis_down.setattr(ratelimit, "_in_process", ratelimit._InProcess(2))
    assert report(client, system, "198.51.100.1").status_code == 201  # its two counters
    refused = report(client, system, "198.51.100.2", 1)

    assert refused.status_code == 503
    assert refused["Retry-After"] == "5"
    assert refused.json()["error"]["code"] == "service_unavailable"
    assert Report.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_in_the_stream_process_a_position_that_cannot_be_counted_answers_503(system, redis_down):
    from config import asgi  # noqa: F401 - the stream process's set-up, before the request

    redis_down.setitem(connection.settings_dict, "CONN_MAX_AGE", 0)
    redis_down.setattr(ratelimit, "_in_process", ratelimit._InProcess(0))
    secret = create_tracker(
        system=system, name="PistenBully", actor=Actor(system.owner.uid, Via.ID_TOKEN)
    ).secret
    now = int(timezone.now().timestamp())

    status, _ = post_through_asgi(
        "/track/osmand", {"id": secret, "lat": 45.69, "lon": -113.95, "timestamp": now}
    )

    assert status == 503
    assert not TrackerPosition.objects.exists()
