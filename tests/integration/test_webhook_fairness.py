"""Fair queuing of webhooks (core.fairqueue) on the real broker: the tasks it queues on the
test's webhook queue in Redis are read back (nobody consumes them), and a queued task is run
here, in the test's process, as a webhook worker would run it.

An endpoint is queued at most once; a system holds at most its share of the slots; a freed
slot goes to the system that used the channel least; an endpoint slow even when it answers
200 gets one attempt a share, then rests, and slow endpoints together hold at most half the
slots; a lost task's claim and a dead sender's are given to a new task by the sweep; the
queue's length and the sending tasks are metrics."""

import time
from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from config.celery import webhook_queue
from core.actors import Actor, Via
from core.fairqueue import QUEUED_LEASE
from tests.factories import TrailFactory, TrailSystemFactory
from trails import services as trail_services
from webhooks import services
from webhooks.models import EndpointShare
from webhooks.tasks import queue_sending, send_webhooks, sweep_webhooks

pytestmark = [pytest.mark.integration, pytest.mark.django_db]

ACTOR = Actor("manager", Via.WEB_APP)
SLOW = 1.2  # seconds: an answer this late is slow


@pytest.fixture
def webhook_tasks(broker, tasks_in):
    """The tasks waiting in the test's webhook queue: [(task's args)]."""
    waiting = tasks_in(webhook_queue(broker))
    return lambda task="webhooks.tasks.send_webhooks": waiting(task)


def endpoint_of(system, url: str):
    return services.create_endpoint(
        system=system, url=url, events=["trail.status_changed"], actor=ACTOR
    ).endpoint


def changes(system, count: int = 1) -> None:
    """`count` trail status changes of the system, committed (their deliveries due now)."""
    for _ in range(count):
        trail = TrailFactory(trail_system=system, status="Open")
        with transaction.atomic():
            trail_services.change_trail(trail=trail, status="Closed", actor=ACTOR)


def run(endpoint_id: str, claim: str) -> int:
    """The queued task, run as the webhook worker runs it."""
    return send_webhooks(endpoint_id, claim)


def test_the_sweep_never_queues_an_endpoint_whose_task_is_queued(system, receiver, webhook_tasks):
    endpoint = endpoint_of(system, receiver().url)
    changes(system, 3)

    for _ in range(3):
        sweep_webhooks()

    ((endpoint_id, claim),) = webhook_tasks()
    assert endpoint_id == endpoint.pk
    assert EndpointShare.objects.get().claim == claim


def test_a_freed_slot_goes_to_the_system_that_used_the_channel_least(
    system, receiver, webhook_tasks, settings
):
    settings.WEBHOOK_SLOTS, settings.WEBHOOK_SLOTS_PER_SYSTEM = 2, 2
    for _ in range(3):
        endpoint_of(system, receiver().url)
    changes(system)
    sweep_webhooks()
    first = webhook_tasks()
    assert len(first) == 2  # of its three endpoints: both slots

    other = TrailSystemFactory()
    waiting = endpoint_of(other, receiver().url)
    changes(other)
    assert queue_sending([waiting.pk]) == 0  # both slots are taken

    assert run(*first[0]) == 1  # done: its slot is free, the other system's turn
    assert webhook_tasks()[2:] == [(waiting.pk, EndpointShare.objects.get(pk=waiting.pk).claim)]


def test_a_system_holds_at_most_its_share_of_the_slots(system, receiver, webhook_tasks, settings):
    settings.WEBHOOK_SLOTS, settings.WEBHOOK_SLOTS_PER_SYSTEM = 8, 2
    for _ in range(5):
        endpoint_of(system, receiver().url)
    other = TrailSystemFactory()
    endpoint_of(other, receiver().url)
    changes(system)
    changes(other)

    sweep_webhooks()

    systems = EndpointShare.objects.exclude(claim="").values_list("tenant", flat=True)
    assert sorted(systems) == sorted([system.pk, system.pk, other.pk])
    assert len(webhook_tasks()) == 3


def test_an_endpoint_slow_even_on_200_gets_one_attempt_a_share_then_rests(
    system, receiver, webhook_tasks
):
    target = receiver(delay=SLOW)
    endpoint = endpoint_of(system, target.url)
    changes(system, 3)
    sweep_webhooks()
    ((endpoint_id, claim),) = webhook_tasks()

    assert run(endpoint_id, claim) == 1
    share = EndpointShare.objects.get()
    assert share.slow and share.claim == ""
    assert share.rest_until > timezone.now()
    assert webhook_tasks("webhooks.tasks.dispatch_webhooks") == [()]  # at its rest's end

    sweep_webhooks()  # two deliveries are due, but it rests
    assert len(webhook_tasks()) == 1
    time.sleep((share.rest_until - timezone.now()).total_seconds() + 0.1)
    sweep_webhooks()
    assert webhook_tasks()[1][0] == endpoint.pk
    assert len(target.received) == 1


def test_slow_endpoints_together_hold_at_most_half_the_slots(
    system, receiver, webhook_tasks, settings
):
    settings.WEBHOOK_SLOTS, settings.WEBHOOK_SLOTS_PER_SYSTEM = 2, 2
    slow = [endpoint_of(system, receiver(delay=SLOW).url) for _ in range(2)]
    changes(system, 2)
    sweep_webhooks()
    for endpoint_id, claim in webhook_tasks():
        run(endpoint_id, claim)  # one attempt each: both are slow now, and rest
    EndpointShare.objects.update(rest_until=None)  # their rest is over
    other = TrailSystemFactory()
    quick = endpoint_of(other, receiver().url)
    changes(other)

    sweep_webhooks()

    claimed = set(EndpointShare.objects.exclude(claim="").values_list("pk", flat=True))
    assert len(claimed & {each.pk for each in slow}) == 1
    assert quick.pk in claimed


def test_a_lost_tasks_claim_goes_to_a_new_task_after_the_lease(system, receiver, webhook_tasks):
    target = receiver()
    endpoint_of(system, target.url)
    changes(system)
    sweep_webhooks()
    ((endpoint_id, lost),) = webhook_tasks()
    EndpointShare.objects.update(claimed_on=timezone.now() - QUEUED_LEASE - timedelta(seconds=1))

    sweep_webhooks()

    (_, (_, claim)) = webhook_tasks()
    assert claim != lost
    assert run(endpoint_id, lost) == 0  # the lost task, come back late: not its claim now
    assert target.received == []
    assert run(endpoint_id, claim) == 1


def test_a_dead_senders_claim_goes_to_a_new_task_at_the_next_sweep(system, receiver, webhook_tasks):
    endpoint_of(system, receiver().url)
    changes(system)
    sweep_webhooks()
    ((_, dead),) = webhook_tasks()
    # Its sender started, then died: its lock went with its database session.
    EndpointShare.objects.update(started_on=timezone.now())

    sweep_webhooks()

    (_, (_, claim)) = webhook_tasks()
    assert claim != dead


def test_metrics_show_the_webhook_queue_its_sending_tasks_and_the_endpoints_waiting(
    system, receiver, webhook_tasks, settings, client, broker
):
    settings.WEBHOOK_SLOTS, settings.WEBHOOK_SLOTS_PER_SYSTEM = 1, 1
    for _ in range(2):
        endpoint_of(system, receiver(delay=SLOW).url)
    changes(system)
    sweep_webhooks()

    page = client.get("/metrics").content.decode()

    assert f'trails_celery_queue_length{{queue="{webhook_queue(broker)}"}} 1.0' in page
    assert 'trails_webhook_sending_tasks{state="queued"} 1.0' in page
    assert 'trails_webhook_sending_tasks{state="running"} 0.0' in page
    assert "trails_webhook_endpoints_waiting 1.0" in page  # the other: no slot free
    assert "trails_webhook_deliveries_pending 2.0" in page
