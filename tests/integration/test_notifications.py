import pytest
from django.db import transaction

from tests.factories import TrailSystemFactory, UpdateFactory
from tests.integration.conftest import wait_for
from updates.models import Delivery, Subscriber
from updates.notifications.recipients import CHUNK_SIZE
from updates.tasks import fan_out_update, notify_subscribers_on_commit

pytestmark = pytest.mark.integration


def subscribers(system, count: int) -> None:
    Subscriber.objects.bulk_create(
        Subscriber(trail_system=system, email=f"s{n}@example.test", phone=f"+1514555{n:04d}")
        for n in range(count)
    )


def all_done(update, expected: int) -> bool:
    done = Delivery.objects.filter(update=update).exclude(state__in=["pending", "sending"])
    return done.count() == expected


def test_a_notify_update_is_delivered_by_a_real_worker(celery_worker):
    """The worker sends to memory (tests/integration/conftest.py, shared_worker)."""
    system = TrailSystemFactory()
    subscribers(system, 7)

    with transaction.atomic():
        update = UpdateFactory(trail_system=system, notify=True)
        notify_subscribers_on_commit(update.pk)

    wait_for(lambda: all_done(update, 14))
    assert set(Delivery.objects.filter(update=update).values_list("state", flat=True)) == {"sent"}


def test_duplicated_fan_out_tasks_send_each_message_once(celery_worker):
    system = TrailSystemFactory()
    count = CHUNK_SIZE + 100  # two chunks per channel, sent by both worker processes
    subscribers(system, count)
    update = UpdateFactory(trail_system=system, notify=True)

    for _ in range(3):
        fan_out_update.delay(update.pk)

    wait_for(lambda: all_done(update, 2 * count), timeout=60)
    deliveries = Delivery.objects.filter(update=update)
    assert set(deliveries.values_list("state", "attempts")) == {("sent", 1)}
