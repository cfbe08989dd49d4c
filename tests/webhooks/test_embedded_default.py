"""The embedded default (no broker: tasks in-process): a manager's write never waits for a
webhook receiver, and the background process `make run` starts beside the server
(`manage.py repeat`) sends and retries on the documented schedule."""

import time

import pytest
from django.conf import settings

from core.actors import Actor, Via
from tests.factories import TrailFactory
from tests.integration.conftest import wait_for
from webhooks import services
from webhooks.models import WebhookDelivery

pytestmark = pytest.mark.django_db(transaction=True)

EVENTS = ["trail.status_changed"]
ACTOR = Actor("manager", Via.WEB_APP)


@pytest.mark.serial  # measures time
def test_a_trail_patch_answers_within_half_a_second_with_a_hanging_receiver(
    system, manager, receiver
):
    assert settings.CELERY_TASK_ALWAYS_EAGER  # the embedded default's in-process tasks
    trail = TrailFactory(trail_system=system, status="Open")
    url = f"/api/v1/trails/{trail.pk}"
    # Without a receiver first (this process's first request loads what every later one uses).
    assert manager.patch(url, {"status": "Caution"}, format="json").status_code == 200
    hanging = receiver(delay=30)
    services.create_endpoint(system=system, url=hanging.url, events=EVENTS, actor=ACTOR)

    started = time.monotonic()
    response = manager.patch(url, {"status": "Closed"}, format="json")
    took = time.monotonic() - started

    assert response.status_code == 200
    assert took < 0.5, f"the write took {took:.2f} s"
    assert hanging.received == []  # not even tried inside the request
    assert WebhookDelivery.objects.get().state == "pending"


def test_a_receiver_that_answered_500_once_gets_the_same_message_again_within_60_s(
    system, manager, receiver, background_loop
):
    target = receiver(statuses=[500])
    services.create_endpoint(system=system, url=target.url, events=EVENTS, actor=ACTOR)
    trail = TrailFactory(trail_system=system, status="Open")

    response = manager.patch(f"/api/v1/trails/{trail.pk}", {"status": "Closed"}, format="json")
    assert response.status_code == 200

    first, again = target.wait_for(2, timeout=60)
    assert again.webhook_id == first.webhook_id
    assert 4 <= again.at - first.at <= 60  # the first retry, 5 s (+-20 %) after the failure
    wait_for(lambda: WebhookDelivery.objects.filter(state="succeeded").exists(), timeout=10)
    delivery = WebhookDelivery.objects.get()
    assert [attempt.response_status for attempt in delivery.attempt_records.all()] == [500, 200]
