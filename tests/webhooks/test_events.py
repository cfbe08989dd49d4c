"""Every path that changes what an event describes records it in the outbox, in the change's
own transaction: API, bulk status, web-app services, grooming, updates and compiles."""

import json
from datetime import UTC, datetime, timedelta

import pytest
from django.db import transaction

from core.actors import Actor, Via
from publishing.publisher import compile_pending
from publishing.scheduling import record_compile_request
from schedules.services import apply_due_schedules, create_schedule
from tests.factories import PointFactory, TrailActivityFactory, TrailFactory
from tests.grooming.geo import path
from trails import services as trail_services
from webhooks.models import WebhookDelivery, WebhookMessage
from webhooks.services import create_endpoint

pytestmark = pytest.mark.django_db

EVERY_EVENT = [
    "trail.status_changed",
    "point.status_changed",
    "update.created",
    "update.deleted",
    "grooming.recorded",
    "system.published",
]


@pytest.fixture
def endpoint(system):
    actor = Actor(system.owner.uid, Via.WEB_APP)
    return create_endpoint(
        system=system, url="https://hooks.example.org/a", events=EVERY_EVENT, actor=actor
    ).endpoint


def sent(event_type: str | None = None) -> list[dict]:
    """The payloads recorded, oldest first."""
    messages = WebhookMessage.objects.order_by("created_on", "id")
    if event_type:
        messages = messages.filter(type=event_type)
    return [json.loads(message.payload) for message in messages]


def test_a_trail_closed_through_the_api_tells_the_trail_and_its_activities(
    system, manager, endpoint
):
    trail = TrailFactory(trail_system=system, name="Ridge", status="Open")
    TrailActivityFactory(trail=trail, value="skiing", status="Open")

    manager.patch(f"/api/v1/trails/{trail.pk}", {"status": "Closed"}, format="json")

    events = sent()
    assert [event["type"] for event in events] == ["trail.status_changed"] * 2
    assert events[0]["timestamp"].endswith("Z")
    assert [event["data"] for event in events] == [
        {
            "trailSystemId": system.pk,
            "trailId": trail.pk,
            "trailName": "Ridge",
            "activity": None,
            "from": "Open",
            "to": "Closed",
            "via": "id-token",
        },
        {
            "trailSystemId": system.pk,
            "trailId": trail.pk,
            "trailName": "Ridge",
            "activity": "skiing",
            "from": "Open",
            "to": "Closed",
            "via": "id-token",
        },
    ]
    delivery = WebhookDelivery.objects.first()
    assert (delivery.endpoint, delivery.state, delivery.attempts) == (endpoint, "pending", 0)
    assert (delivery.give_up_on - delivery.created_on).total_seconds() == 24 * 3600


def test_an_activity_changed_alone(system, manager, endpoint):
    trail = TrailFactory(trail_system=system, status="None")
    TrailActivityFactory(trail=trail, value="skiing", status="Open")

    manager.patch(
        f"/api/v1/trails/{trail.pk}",
        {"activities": [{"value": "skiing", "status": "Caution"}]},
        format="json",
    )

    (event,) = sent()
    assert (event["data"]["activity"], event["data"]["from"], event["data"]["to"]) == (
        "skiing",
        "Open",
        "Caution",
    )


def test_a_bulk_status_change_tells_each_trail_once(system, manager, endpoint):
    trails = [TrailFactory(trail_system=system, status="Open") for _ in range(3)]
    TrailFactory(trail_system=system, status="Closed")

    manager.post(
        f"/api/v1/trail-systems/{system.pk}/trails/status",
        {"status": "Closed", "all": True},
        format="json",
    )

    events = sent()
    assert sorted(event["data"]["trailId"] for event in events) == sorted(t.pk for t in trails)
    assert {event["data"]["via"] for event in events} == {"bulk"}


def test_the_web_apps_writes_tell_too(system, endpoint):
    trail = TrailFactory(trail_system=system, status="Open")
    with transaction.atomic():
        trail_services.change_trail(
            trail=trail, status="Caution", actor=Actor("someone", Via.WEB_APP)
        )

    assert sent()[0]["data"]["via"] == "web-app"


def test_a_change_to_the_same_status_tells_nothing(system, manager, endpoint):
    trail = TrailFactory(trail_system=system, status="Open")

    manager.patch(f"/api/v1/trails/{trail.pk}", {"status": "Open"}, format="json")

    assert sent() == []


def test_a_point(system, manager, endpoint):
    point = PointFactory(trail_system=system, name="Lodge", status="Open")

    manager.patch(f"/api/v1/points/{point.pk}", {"status": "Closed"}, format="json")

    (event,) = sent()
    assert event["type"] == "point.status_changed"
    assert event["data"] == {
        "trailSystemId": system.pk,
        "pointId": point.pk,
        "pointName": "Lodge",
        "from": "Open",
        "to": "Closed",
        "via": "id-token",
    }


def test_an_update_created_and_deleted(system, manager, endpoint):
    trail = TrailFactory(trail_system=system)
    created = manager.post(
        f"/api/v1/trail-systems/{system.pk}/updates",
        {"type": "notice", "description": "Race at noon.", "trailIds": [trail.pk]},
        format="json",
    ).json()
    manager.delete(f"/api/v1/updates/{created['id']}")

    created_event, deleted_event = sent()
    assert created_event["type"] == "update.created"
    data = created_event["data"]
    assert data["id"] == created["id"] and data["type"] == "notice"
    assert data["description"] == "Race at noon." and data["severity"] == "info"
    assert data["trailIds"] == [trail.pk] and data["allTrails"] is False
    assert data["expirationDate"] == created["expirationDate"]
    assert deleted_event == {
        "type": "update.deleted",
        "timestamp": deleted_event["timestamp"],
        "data": {"trailSystemId": system.pk, "id": created["id"], "type": "notice"},
    }


def test_grooming(system, manager, endpoint):
    corners = [(0, 0), (2000, 0)]
    trail = TrailFactory(
        trail_system=system,
        name="Main",
        geometry={"type": "LineString", "coordinates": path(corners, step=100)},
    )

    response = manager.post(
        f"/api/v1/trail-systems/{system.pk}/grooming-tracks",
        {"type": "LineString", "coordinates": path(corners, step=50)},
        format="json",
    )

    (event,) = sent("grooming.recorded")
    result = response.json()
    assert event["data"] == {"trailSystemId": system.pk, **result, "condition": "groomed"}
    assert [groomed["trailId"] for groomed in event["data"]["trails"]] == [trail.pk]


def test_a_compile_tells_the_new_file(system, endpoint, settings):
    TrailFactory(trail_system=system, status="Open")
    with transaction.atomic():
        record_compile_request(system)

    published = compile_pending(system.pk).path

    (event,) = sent("system.published")
    assert event["data"] == {
        "trailSystemId": system.pk,
        "url": f"{settings.PUBLIC_BASE_URL}{settings.MEDIA_URL}{published}",
        "publishedOn": event["data"]["publishedOn"],
        "totalTrails": 1,
        "openTrails": 1,
        "cautionTrails": 0,
        "closedTrails": 0,
    }


def test_only_the_events_an_endpoint_subscribed_to(system, manager):
    actor = Actor(system.owner.uid, Via.WEB_APP)
    points_only = create_endpoint(
        system=system, url="https://a.example.org/", events=["point.status_changed"], actor=actor
    ).endpoint
    off = create_endpoint(
        system=system, url="https://b.example.org/", events=EVERY_EVENT, actor=actor, active=False
    ).endpoint
    trail = TrailFactory(trail_system=system, status="Open")
    point = PointFactory(trail_system=system, status="Open")

    manager.patch(f"/api/v1/trails/{trail.pk}", {"status": "Closed"}, format="json")
    manager.patch(f"/api/v1/points/{point.pk}", {"status": "Closed"}, format="json")

    assert [event["type"] for event in sent()] == ["point.status_changed"]
    assert list(WebhookDelivery.objects.values_list("endpoint", flat=True)) == [points_only.pk]
    assert not off.deliveries.exists()


def test_a_change_rolled_back_records_nothing(system, endpoint):
    trail = TrailFactory(trail_system=system, status="Open")

    with pytest.raises(RuntimeError), transaction.atomic():
        trail_services.change_trail(trail=trail, status="Closed", actor=Actor("x", Via.API_KEY))
        raise RuntimeError("the write fails after the event")

    assert sent() == [] and not WebhookDelivery.objects.exists()


def test_another_systems_change_is_not_sent(system, manager, endpoint):
    other = TrailFactory(status="Open")  # its own system, owned by someone else
    with transaction.atomic():
        trail_services.change_trail(trail=other, status="Closed", actor=Actor("x", Via.API_KEY))

    assert sent() == []


def test_a_scheduled_change_tells_too(endpoint, system):
    system.time_zone = "UTC"
    system.save()
    trail = TrailFactory(trail_system=system, name="Race Course", status="Open")
    made = datetime(2030, 1, 5, 9, tzinfo=UTC)
    create_schedule(
        system=system,
        trail_ids=[trail.pk],
        status="Closed",
        repeat="once",
        starts_at=datetime(2030, 1, 5, 16),
        actor=Actor(system.owner.uid, Via.ID_TOKEN),
        now=made,
    )

    apply_due_schedules(now=made + timedelta(hours=8))

    (event,) = sent("trail.status_changed")
    assert (event["data"]["trailName"], event["data"]["to"], event["data"]["via"]) == (
        "Race Course",
        "Closed",
        "schedule",
    )
