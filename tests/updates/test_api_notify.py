"""Notifications as a manager triggers them through the API (tasks run in-process here)."""

import pytest
from django.core import mail

from tests.factories import SubscriberFactory

pytestmark = pytest.mark.django_db
pytest_plugins = ["tests.updates.notify_fixtures"]


@pytest.fixture
def subscribers(system):
    return [
        SubscriberFactory(trail_system=system, email="a@example.test", phone="+15005550006"),
        SubscriberFactory(trail_system=system, email="b@example.test", phone="+15005550007"),
    ]


def post_notice(manager, system, capture, **fields):
    with capture(execute=True):
        response = manager.post(
            f"/api/v1/trail-systems/{system.pk}/updates",
            {"type": "notice", "description": "Lower loop closed for logging.", **fields},
            format="json",
        )
    assert response.status_code == 201, response.content
    return response.json()


def test_create_with_notify_sends_one_email_and_one_sms_per_subscriber(
    manager, system, subscribers, sms_outbox, django_capture_on_commit_callbacks
):
    post_notice(manager, system, django_capture_on_commit_callbacks, notify=True)

    assert sorted(m.to[0] for m in mail.outbox) == ["a@example.test", "b@example.test"]
    assert sorted(m.to for m in sms_outbox) == ["+15005550006", "+15005550007"]
    assert all("Lower loop closed for logging." in m.body for m in mail.outbox)


def test_create_without_notify_and_patch_of_notify_send_nothing(
    manager, system, subscribers, sms_outbox, django_capture_on_commit_callbacks
):
    update = post_notice(manager, system, django_capture_on_commit_callbacks)
    with django_capture_on_commit_callbacks(execute=True):
        response = manager.patch(
            f"/api/v1/updates/{update['id']}",
            {"notify": True, "description": "Now with a detour."},
            format="json",
        )

    assert response.status_code == 200
    assert response.json()["notify"] is True
    assert mail.outbox == []
    assert sms_outbox == []


def test_patch_of_a_notified_update_sends_nothing_more(
    manager, system, subscribers, sms_outbox, django_capture_on_commit_callbacks
):
    update = post_notice(manager, system, django_capture_on_commit_callbacks, notify=True)
    sent = (len(mail.outbox), len(sms_outbox))
    with django_capture_on_commit_callbacks(execute=True):
        manager.patch(f"/api/v1/updates/{update['id']}", {"expiresInHours": 48}, format="json")

    assert (len(mail.outbox), len(sms_outbox)) == sent == (2, 2)
