"""Fair queuing of riders' alerts (core.fairqueue, as webhooks have it), on the real broker:
the tasks queued on the test's alerts queue in Redis are read back (nobody consumes them), and
a queued task is run here as the alerts worker would run it.

A lane of a system's alerts through one push service is one key: a system with a big fan-out
is served a share, then the freed slot goes to another system's; its lanes go at once, up to
its slots, leaving another system a slot; a push service slow even when it answers gets one
message a share and then rests; a key is queued at most once."""

import time

import pytest
from django.core.cache import cache
from django.db import transaction

from alerts.delivery import share_key
from alerts.models import AlertShare
from alerts.tasks import fan_out_alerts, send_alerts, sweep_alerts
from config.celery import alert_queue
from core.actors import Actor, Via
from tests.alerts.push_service import Subscription
from tests.factories import TrailFactory, TrailSystemFactory
from tests.fake_http import FakeServer
from trails import services as trail_services

pytestmark = [pytest.mark.integration, pytest.mark.django_db]

ACTOR = Actor("manager", Via.WEB_APP)
SLOW = 1.2  # seconds: an answer this late is slow


@pytest.fixture
def alert_tasks(broker, tasks_in):
    """The sending tasks waiting in the test's alerts queue: [(key, claim)]."""
    waiting = tasks_in(alert_queue(broker))
    cache.clear()  # sign-ups are bounded per client and minute
    yield lambda: waiting("alerts.tasks.send_alerts")
    cache.clear()


@pytest.fixture
def slow_push_service():
    def answer(request):
        time.sleep(SLOW)
        return 201, b""

    with FakeServer(answer) as server:
        yield server


def followed_trail(client, system, server, followers: int) -> list[Subscription]:
    """A trail of the system, and `followers` push subscriptions on `server` to its closing."""
    trail = TrailFactory(trail_system=system, status="Open")
    subscriptions = [Subscription.to(server) for _ in range(followers)]
    for subscription in subscriptions:
        body = {
            "channel": "push",
            "subscription": subscription.json(),
            "rules": [{"trailId": trail.pk, "on": ["closes"]}],
        }
        answer = client.post(f"/alerts/{system.pk}", body, content_type="application/json")
        assert answer.status_code == 201, answer.content
    with transaction.atomic():
        trail_services.change_trail(trail=trail, status="Closed", actor=ACTOR)
    return subscriptions


def test_a_big_fan_out_is_served_a_share_then_another_systems_alert_goes(
    client, system, slow_push_service, alert_tasks, settings
):
    settings.ALERTS_SLOTS, settings.ALERTS_SLOTS_PER_SYSTEM = 1, 1
    followed_trail(client, system, slow_push_service, followers=4)
    other = TrailSystemFactory()
    (waiting,) = followed_trail(client, other, slow_push_service, followers=1)

    fan_out_alerts(system.pk)
    fan_out_alerts(other.pk)  # the one slot is taken: its alert waits in the database
    ((key, claim),) = alert_tasks()
    origin = waiting.endpoint.rsplit("/push/", 1)[0]
    assert key in {share_key(system.pk, origin, lane) for lane in range(settings.ALERTS_LANES)}

    assert send_alerts(key, claim) == 1  # slow: one message a share, then it rests
    assert AlertShare.objects.get(pk=key).rest_until is not None
    (_, (other_key, other_claim)) = alert_tasks()
    assert other_key.startswith(f"{other.pk} ")
    assert send_alerts(other_key, other_claim) == 1
    paths = [request.path for request in slow_push_service.requests]
    assert paths[-1] == waiting.endpoint.split(slow_push_service.url, 1)[1]
    assert len(paths) == 2  # the big fan-out's other three wait their turn


def test_the_sweep_never_queues_a_key_whose_task_is_queued(client, system, alert_tasks, settings):
    with FakeServer(lambda request: (201, b"")) as server:
        followed_trail(client, system, server, followers=2)
        fan_out_alerts(system.pk)
        for _ in range(3):
            sweep_alerts()

        tasks = alert_tasks()  # the riders' lanes, each queued once
        assert len({key for key, _ in tasks}) == len(tasks)
        assert sum(send_alerts(key, claim) for key, claim in tasks) == 2
        assert len(server.requests) == 2


def test_a_big_fan_out_goes_in_several_lanes_at_once_and_leaves_another_system_a_slot(
    client, system, alert_tasks, settings
):
    settings.ALERTS_SLOTS, settings.ALERTS_SLOTS_PER_SYSTEM, settings.ALERTS_LANES = 3, 2, 4
    settings.ALERTS_SIGNUPS_PER_CLIENT_MINUTE = 50
    with FakeServer(lambda request: (201, b"")) as server:
        followed_trail(client, system, server, followers=12)
        other = TrailSystemFactory()
        followed_trail(client, other, server, followers=1)
        fan_out_alerts(system.pk)
        fan_out_alerts(other.pk)

        tasks = alert_tasks()
        big = {key for key, _ in tasks if key.startswith(f"{system.pk} ")}
        assert len(big) == 2  # two of its lanes sent at once
        assert [key for key, _ in tasks if key.startswith(f"{other.pk} ")]
        run = set()
        while waiting := [task for task in alert_tasks() if task not in run]:
            for key, claim in waiting:  # each freed slot goes to a lane with alerts due
                run.add((key, claim))
                send_alerts(key, claim)
        assert len(server.requests) == 13
        assert len({request.path for request in server.requests}) == 13
