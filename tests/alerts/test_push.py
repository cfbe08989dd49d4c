"""Following a trail by Web Push, end to end on the service's side: the sign-up, the owner's
change, and the request a push service gets (checked as the push service and the browser
would: the VAPID JWT against /alerts/vapid-public-key, the payload decrypted)."""

import pytest

from alerts.models import Alert, Follower
from alerts.tasks import run_all_due
from tests.alerts.push_service import Subscription, accepting, header, verified_claims
from tests.factories import TrailActivityFactory, TrailFactory
from tests.fake_http import FakeServer

pytestmark = pytest.mark.django_db


@pytest.fixture
def push_service():
    with FakeServer(accepting()) as server:
        yield server


def follow(client, system, subscription: Subscription, rules: list[dict], **more):
    body = {"channel": "push", "subscription": subscription.json(), "rules": rules, **more}
    return client.post(f"/alerts/{system.pk}", body, content_type="application/json")


def test_a_closure_reaches_the_follower_encrypted_and_signed(client, system, manager, push_service):
    trail = TrailFactory(trail_system=system, name="Ridge", status="Open")
    TrailActivityFactory(trail=trail, value="skiing", status="Open")
    subscription = Subscription.to(push_service)
    answer = follow(
        client, system, subscription, [{"trailId": trail.pk, "on": ["closes", "opens"]}]
    )
    assert answer.status_code == 201
    manage_url = answer.json()["manageUrl"]
    public_key = client.get("/alerts/vapid-public-key").json()["publicKey"]

    manager.patch(f"/api/v1/trails/{trail.pk}", {"status": "Closed"}, format="json")
    run_all_due()

    (request,) = push_service.requests
    claims = verified_claims(request, public_key)
    assert claims["aud"] == push_service.url
    assert claims["sub"].startswith(("mailto:", "https:"))
    assert header(request, "Urgency") == "high"
    assert int(header(request, "TTL")) > 0
    assert len(header(request, "Topic")) <= 32
    message = subscription.decrypt(request)
    assert message["event"] == {
        "type": "status",
        "systemId": system.pk,
        "trailId": trail.pk,
        "activity": None,
        "status": "Closed",
    }
    assert message["title"] == "Ridge: Closed"
    assert message["tag"] == f"trail-{trail.pk}"
    assert message["url"].endswith(f"/map/{system.pk}?trail={trail.pk}")
    assert message["manageUrl"] == manage_url
    assert Alert.objects.get().state == "sent"


def test_reopening_is_normal_urgency_and_the_same_topic(client, system, manager, push_service):
    trail = TrailFactory(trail_system=system, name="Ridge", status="Closed")
    subscription = Subscription.to(push_service)
    follow(client, system, subscription, [{"trailId": trail.pk, "on": ["closes", "opens"]}])

    manager.patch(f"/api/v1/trails/{trail.pk}", {"status": "Open"}, format="json")
    run_all_due()

    (request,) = push_service.requests
    assert header(request, "Urgency") == "normal"
    assert subscription.decrypt(request)["event"]["status"] == "Open"


def test_a_change_nobody_follows_sends_nothing(client, system, manager, push_service):
    followed = TrailFactory(trail_system=system, status="Open")
    other = TrailFactory(trail_system=system, status="Open")
    follow(
        client, system, Subscription.to(push_service), [{"trailId": followed.pk, "on": ["closes"]}]
    )

    manager.patch(f"/api/v1/trails/{other.pk}", {"status": "Closed"}, format="json")
    manager.patch(f"/api/v1/trails/{followed.pk}", {"status": "Caution"}, format="json")
    run_all_due()

    assert push_service.requests == []


@pytest.mark.parametrize("status", [404, 410])
def test_a_subscription_the_push_service_no_longer_knows_is_deleted(
    client, system, manager, status
):
    trail = TrailFactory(trail_system=system, status="Open")
    with FakeServer(lambda request: (status, b"")) as server:
        follow(client, system, Subscription.to(server), [{"trailId": trail.pk, "on": ["closes"]}])
        manager.patch(f"/api/v1/trails/{trail.pk}", {"status": "Closed"}, format="json")
        run_all_due()

        assert len(server.requests) == 1
    assert not Follower.objects.exists()
    assert not Alert.objects.exists()
