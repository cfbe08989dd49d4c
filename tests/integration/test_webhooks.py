"""Webhooks end to end: a real worker process posts to the test's own receivers on 127.0.0.1.

A change reaches its receiver within 2 s, signed with the secret the API showed; a failing
receiver gets the same webhook-id again until it answers 2xx; 500 changes in 10 s reach each
of 3 receivers, none lost, with the worker killed in the middle of it."""

import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection, transaction

from core.actors import Actor, Via
from tests.factories import TrailFactory, TrailSystemFactory
from tests.integration.conftest import wait_for
from trails import services as trail_services
from webhooks import services as webhook_services
from webhooks.models import WebhookDelivery, WebhookMessage
from webhooks.tasks import sweep_webhooks

pytestmark = pytest.mark.integration

ACTOR = Actor("patroller", Via.API_KEY)
STATUSES = ("Open", "Caution", "Closed")


@pytest.fixture
def quick_retries(monkeypatch):
    """The worker's first retry after 0.3 s instead of 5 s (then 0.9 s, ...)."""
    monkeypatch.setenv("WEBHOOK_RETRY_SECONDS", "0.3")


def set_status(trail, status: str) -> float:
    """Commit a status change; returns when it committed (time.monotonic())."""
    with transaction.atomic():
        trail_services.change_trail(trail=trail, status=status, actor=ACTOR)
    return time.monotonic()


def test_a_change_reaches_its_receiver_within_2_seconds_signed_with_the_shown_secret(
    broker, start_worker, receiver, client_for
):
    start_worker()
    system = TrailSystemFactory()
    trail = TrailFactory(trail_system=system, name="Ridge", status="Open")
    target = receiver()
    response = client_for(system.owner).post(
        f"/api/v1/trail-systems/{system.pk}/webhooks",
        {"url": target.url, "events": ["trail.status_changed"]},
        format="json",
    )
    secret = response.json()["secret"]

    committed = set_status(trail, "Closed")

    (request,) = target.wait_for(1, timeout=10)
    assert request.at - committed < 2.0
    payload = request.verified(secret)
    assert payload["type"] == "trail.status_changed"
    assert payload["data"] == {
        "trailSystemId": system.pk,
        "trailId": trail.pk,
        "trailName": "Ridge",
        "activity": None,
        "from": "Open",
        "to": "Closed",
        "via": "api-key",
    }
    time.sleep(1)
    assert len(target.received) == 1


def test_a_receiver_answering_500_twice_gets_the_same_id_three_times_and_nothing_else(
    quick_retries, broker, start_worker, receiver
):
    start_worker()
    system = TrailSystemFactory()
    trail = TrailFactory(trail_system=system, status="Open")
    target = receiver(statuses=[500, 500])
    created = webhook_services.create_endpoint(
        system=system, url=target.url, events=["trail.status_changed"], actor=ACTOR
    )

    set_status(trail, "Caution")

    requests = target.wait_for(3, timeout=30)
    assert len({request.webhook_id for request in requests}) == 1
    for request in requests:
        request.verified(created.secret)
    time.sleep(3)  # more than the retries' spacing: nothing else comes
    assert len(target.received) == 3
    delivery = WebhookDelivery.objects.get()
    assert (delivery.state, delivery.attempts) == ("succeeded", 3)
    assert [a.response_status for a in delivery.attempt_records.all()] == [500, 500, 200]


def change_in_turn(trails: list, count: int, seconds: float, started: float) -> None:
    """`count` status changes of `trails`, one at a time, spread over `seconds`."""
    try:
        for n in range(count):
            trail = trails[n % len(trails)]
            set_status(trail, STATUSES[(n // len(trails) + 1) % 3])
            time.sleep(max(0.0, started + (n + 1) * seconds / count - time.monotonic()))
    finally:
        connection.close()


def swept_until_none_pending() -> bool:
    """Whether every delivery is done; if not, what beat does every 10 s: the killed
    worker's tasks are lost, and the delivery it was sending is still pending."""
    if not WebhookDelivery.objects.filter(state="pending").exists():
        return True
    sweep_webhooks.delay()
    return False


def test_500_changes_in_10_seconds_reach_each_of_3_endpoints_none_lost_despite_a_killed_worker(
    broker, start_worker, receiver
):
    worker = start_worker()
    system = TrailSystemFactory()
    trails = [TrailFactory(trail_system=system, status="Open") for _ in range(25)]
    targets = [receiver() for _ in range(3)]
    secrets = [
        webhook_services.create_endpoint(
            system=system, url=target.url, events=["trail.status_changed"], actor=ACTOR
        ).secret
        for target in targets
    ]
    # Five managers at once, each on trails of their own, 100 changes each.
    writers = ThreadPoolExecutor(max_workers=5)
    started = time.monotonic()
    done = [writers.submit(change_in_turn, trails[n::5], 100, 10.0, started) for n in range(5)]
    wait_for(lambda: sum(len(target.received) for target in targets) >= 60, timeout=30)
    worker.kill()  # in the middle of sending: a request may be out, unrecorded
    assert not all(future.done() for future in done)  # and of the changes
    start_worker()
    for future in done:
        future.result()

    wait_for(swept_until_none_pending, timeout=90, interval=1.0)
    expected = set(WebhookMessage.objects.values_list("pk", flat=True))
    assert len(expected) == 500
    assert all(set(target.ids()) == expected for target in targets)
    for target, secret in zip(targets, secrets, strict=True):
        counts = Counter(target.ids())
        # At least once: a request out when the worker died is sent again, under its id.
        assert sum(counts.values()) - len(counts) <= 1, counts.most_common(2)
        target.received[-1].verified(secret)
    assert set(WebhookDelivery.objects.values_list("state", flat=True)) == {"succeeded"}
