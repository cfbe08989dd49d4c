"""What riders are told, and when: bursts coalesced, quiet hours, once a day, grooming,
notices and snow without any "notify" box, the owner turning alerts off, and a push service
that fails or asks to wait."""

from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone

from alerts import fanout
from alerts.models import Alert, AlertCount, Follower
from alerts.services import turn_alerts_off
from alerts.tasks import run_all_due
from core.actors import Actor, Via
from tests.alerts.push_service import Subscription
from tests.factories import TrailFactory
from tests.fake_http import FakeServer
from tests.grooming.geo import path

pytestmark = pytest.mark.django_db


@pytest.fixture
def push_service():
    with FakeServer(lambda request: (201, b"")) as server:
        yield server


def follow(client, system, server, rules: list[dict], **more) -> Subscription:
    subscription = Subscription.to(server)
    body = {"channel": "push", "subscription": subscription.json(), "rules": rules, **more}
    answer = client.post(f"/alerts/{system.pk}", body, content_type="application/json")
    assert answer.status_code == 201, answer.content
    return subscription


def messages(server, subscription: Subscription) -> list[dict]:
    return [
        subscription.decrypt(request)
        for request in server.requests
        if request.path == subscription.endpoint.split(server.url, 1)[1]
    ]


def counts() -> dict[str, int]:
    return dict(AlertCount.objects.filter(channel="push").values_list("outcome", "count"))


class WorkerLost(Exception):
    """The worker fanning out is lost (killed, its machine gone)."""


def test_a_fan_out_lost_after_a_chunk_goes_on_from_there_telling_each_rider_once(
    client, system, manager, push_service, settings, monkeypatch
):
    settings.ALERTS_SIGNUPS_PER_CLIENT_MINUTE = 50
    monkeypatch.setattr(fanout, "CHUNK", 2)
    trail = TrailFactory(trail_system=system, status="Open")
    riders = [
        follow(client, system, push_service, [{"trailId": trail.pk, "on": ["closes"]}])
        for _ in range(5)
    ]
    manager.patch(f"/api/v1/trails/{trail.pk}", {"status": "Closed"}, format="json")

    def lost(due) -> None:
        raise WorkerLost

    with pytest.raises(WorkerLost):  # lost once its first chunk has committed
        fanout.fan_out(system.pk, committed=lost)
    assert Alert.objects.filter(due_on__lte=timezone.now()).count() == 2  # sent meanwhile

    run_all_due()

    assert [len(messages(push_service, rider)) for rider in riders] == [1] * 5
    assert {message["event"]["status"] for message in messages(push_service, riders[0])} == {
        "Closed"
    }


def test_twelve_reopenings_make_two_messages(client, system, manager, push_service, settings):
    settings.ALERTS_COALESCE_SECONDS = 60
    trails = [
        TrailFactory(trail_system=system, name=f"Trail {n:02}", status="Closed", order=n)
        for n in range(12)
    ]
    subscription = follow(
        client, system, push_service, [{"trailId": t.pk, "on": ["opens"]} for t in trails]
    )
    start = timezone.now()
    for n, trail in enumerate(trails):
        manager.patch(f"/api/v1/trails/{trail.pk}", {"status": "Open"}, format="json")
        run_all_due(start + timedelta(seconds=n * 0.3))  # the worker, after each commit

    first = messages(push_service, subscription)
    assert [message["title"] for message in first] == ["Trail 00: Open"]

    run_all_due(start + timedelta(seconds=61))

    (_, more) = messages(push_service, subscription)
    assert more["title"] == "11 more trails open"
    assert more["body"] == ", ".join(f"Trail {n:02}" for n in range(1, 12))
    assert more["tag"] == f"system-{system.pk}"
    assert more["event"]["trailId"] == trails[-1].pk
    run_all_due(start + timedelta(minutes=10))
    assert len(push_service.requests) == 2
    assert counts() == {"sent": 2, "coalesced": 11}


def test_quiet_hours_hold_a_grooming_pass_until_they_end(
    client, system, manager, push_service, settings
):
    system.time_zone = "America/Denver"
    system.save()
    corners = [(0, 0), (2000, 0)]
    trail = TrailFactory(
        trail_system=system,
        name="Upper Loop",
        geometry={"type": "LineString", "coordinates": path(corners, step=100)},
    )
    local = timezone.now().astimezone(ZoneInfo("America/Denver"))
    quiet = {
        "from": f"{(local - timedelta(hours=1)):%H:%M}",
        "to": f"{(local + timedelta(hours=2)):%H:%M}",
    }
    subscription = follow(
        client, system, push_service, [{"trailId": trail.pk, "on": ["groomed"]}], quietHours=quiet
    )

    manager.post(
        f"/api/v1/trail-systems/{system.pk}/grooming-tracks",
        {"type": "LineString", "coordinates": path(corners, step=50)},
        format="json",
    )
    run_all_due()
    assert push_service.requests == []
    held = Alert.objects.get()
    assert held.held
    assert held.due_on.astimezone(local.tzinfo).strftime("%H:%M") == quiet["to"]

    run_all_due(held.due_on - timedelta(seconds=1))
    assert push_service.requests == []
    run_all_due(held.due_on)
    (message,) = messages(push_service, subscription)
    assert message["title"] == "Upper Loop: groomed"
    assert message["event"]["type"] == "groomed"
    assert counts() == {"held": 1, "sent": 1}


def test_a_danger_notice_is_never_held(client, system, manager, push_service):
    trail = TrailFactory(trail_system=system, name="Ridge")
    subscription = follow(
        client,
        system,
        push_service,
        [{"trailId": trail.pk, "on": ["notices"]}],
        quietHours={"from": "00:00", "to": "23:59"},
    )
    for severity in ("info", "warning", "danger"):
        manager.post(
            f"/api/v1/trail-systems/{system.pk}/updates",
            {
                "type": "notice",
                "description": f"<b>{severity}</b> avalanche control",
                "severity": severity,
                "trailIds": [trail.pk],
            },
            format="json",
        )
    run_all_due()

    (message,) = messages(push_service, subscription)
    assert message["event"]["type"] == "notice"
    assert "<b>danger</b> avalanche control" in message["title"]
    assert Alert.objects.filter(held=True).count() == 1  # the warning waits for morning


def test_snow_over_the_riders_depth(client, system, manager, push_service):
    system.depth_measurement = "centimeters"
    system.save()
    subscription = follow(
        client, system, push_service, [{"trailId": None, "on": ["snow"], "snowCm": 10}]
    )
    for depth in (4, 15):
        manager.post(
            f"/api/v1/trail-systems/{system.pk}/updates",
            {"type": "snowReport", "twentyFourHours": depth},
            format="json",
        )
        run_all_due(timezone.now() + timedelta(minutes=5 * depth))

    (message,) = messages(push_service, subscription)
    assert message["event"]["type"] == "snow"
    assert "15 cm of new snow" in message["title"]


def test_a_snow_depth_and_a_grooming_condition_leave_the_rules_other_kinds_alone(
    client, system, manager, push_service
):
    trail = TrailFactory(trail_system=system, name="Ridge", status="Open")
    rule = {"trailId": trail.pk, "on": ["closes", "snow", "groomed"], "snowCm": 30}
    subscription = follow(client, system, push_service, [rule | {"condition": "classicGroomed"}])

    manager.patch(f"/api/v1/trails/{trail.pk}", {"status": "Closed"}, format="json")
    run_all_due()

    (message,) = messages(push_service, subscription)
    assert message["title"] == "Ridge: Closed"


def test_once_a_day(client, system, manager, push_service):
    trail = TrailFactory(trail_system=system, name="Ridge", status="Open")
    subscription = follow(
        client,
        system,
        push_service,
        [{"trailId": trail.pk, "on": ["closes", "opens"]}],
        oncePerDay=True,
    )
    start = timezone.now()
    for n, status in enumerate(["Closed", "Open", "Closed"]):
        manager.patch(f"/api/v1/trails/{trail.pk}", {"status": status}, format="json")
        run_all_due(start + timedelta(minutes=5 * n))

    assert len(messages(push_service, subscription)) == 1


def test_alerts_turned_off_by_the_owner(client, system, manager, push_service):
    trail = TrailFactory(trail_system=system, status="Open")
    follow(client, system, push_service, [{"trailId": trail.pk, "on": ["closes"]}])
    turn_alerts_off(system=system, actor=Actor(system.owner.uid, Via.WEB_APP))

    manager.patch(f"/api/v1/trails/{trail.pk}", {"status": "Closed"}, format="json")
    run_all_due()

    assert push_service.requests == []
    body = {
        "channel": "push",
        "subscription": Subscription.to(push_service).json(),
        "rules": [{"trailId": None, "on": ["closes"]}],
    }
    answer = client.post(f"/alerts/{system.pk}", body, content_type="application/json")
    assert answer.status_code == 403


def test_a_busy_push_service_is_retried_after_its_retry_after(client, system, manager, settings):
    settings.ALERTS_RETRY_SECONDS = 1
    trail = TrailFactory(trail_system=system, name="Ridge", status="Open")
    answers = iter([(429, b"", {"Retry-After": "30"}), (503, b""), (201, b"")])
    with FakeServer(lambda request: next(answers)) as server:
        subscription = follow(client, system, server, [{"trailId": trail.pk, "on": ["closes"]}])
        manager.patch(f"/api/v1/trails/{trail.pk}", {"status": "Closed"}, format="json")
        start = timezone.now()
        run_all_due(start)
        assert len(server.requests) == 1
        run_all_due(start + timedelta(seconds=5))  # the push service asked for 30 s
        assert len(server.requests) == 1
        run_all_due(start + timedelta(seconds=31))
        assert len(server.requests) == 2  # a 503: the next wait is ours, 3 s +- 20 %
        run_all_due(start + timedelta(seconds=36))
        assert len(server.requests) == 3
    message = subscription.decrypt(server.requests[-1])
    assert message["event"]["status"] == "Closed"
    assert Alert.objects.get().state == "sent"
    assert Follower.objects.count() == 1
