"""A system's Trackers page: add a tracker (secret, URLs and QR code shown once), list,
end a running grooming session, revoke."""

from html import unescape

import pytest
from django.utils import timezone

from grooming.models import GroomingSession, Tracker
from tests.factories import MembershipFactory, TrailSystemFactory
from tests.grooming.replay import send_osmand_query

pytestmark = pytest.mark.django_db


def trackers_url(system) -> str:
    return f"/admin/trails/trailsystem/{system.pk}/trackers/"


@pytest.fixture
def world(client):
    system = TrailSystemFactory(name="Bear Creek Nordic")
    trustee = MembershipFactory(trail_system=system, user__uid="groomer", role="Trustee").user
    client.force_login(trustee, backend="webapp.backends.RoleBackend")
    return system


def test_a_trustee_adds_a_tracker_and_sees_its_secret_once(client, world):
    page = client.post(
        trackers_url(world), {"action": "create", "name": "PistenBully 1", "condition": "groomed"}
    )
    assert page.status_code == 200
    html = unescape(page.content.decode())
    tracker = Tracker.objects.get()
    secret = html.split('id="tracker-secret" value="')[1].split('"')[0]
    assert secret.startswith(tracker.prefix)
    assert f"/track/osmand?id={secret}" in html
    assert "<svg" in html  # the QR code of the tracking URL
    assert "no-store" in page["Cache-Control"]
    again = unescape(client.get(trackers_url(world)).content.decode())
    assert "PistenBully 1" in again and secret not in again


def test_a_running_session_is_ended_and_a_tracker_revoked_from_the_page(client, world):
    client.post(trackers_url(world), {"action": "create", "name": "PB", "condition": "groomed"})
    tracker = Tracker.objects.get()
    html = client.get(trackers_url(world)).content.decode()
    assert "grooming now" not in html
    # A position starts a session (the secret is read back from the creation page).
    created = client.post(
        trackers_url(world), {"action": "create", "name": "PB 2", "condition": "groomed"}
    )
    secret = (
        unescape(created.content.decode()).split('id="tracker-secret" value="')[1].split('"')[0]
    )
    second = Tracker.objects.get(name="PB 2")
    assert send_osmand_query(client, secret, (-113.95, 45.69, timezone.now())).status_code == 200
    assert "grooming now" in client.get(trackers_url(world)).content.decode()
    client.post(trackers_url(world), {"action": "end", "tracker": second.pk})
    assert not GroomingSession.objects.filter(ended_on__isnull=True).exists()
    asked = client.post(trackers_url(world), {"action": "revoke", "tracker": tracker.pk})
    assert "Revoke PB?" in unescape(asked.content.decode())
    tracker.refresh_from_db()
    assert tracker.revoked_on is None
    client.post(trackers_url(world), {"action": "revoke", "tracker": tracker.pk, "confirmed": "1"})
    tracker.refresh_from_db()
    assert tracker.revoked_on is not None
    assert "PB 2" in client.get(trackers_url(world)).content.decode()


def test_a_stranger_cannot_see_the_page(client):
    system = TrailSystemFactory()
    other = MembershipFactory(user__uid="elsewhere", role="Trustee").user
    client.force_login(other, backend="webapp.backends.RoleBackend")
    assert client.get(trackers_url(system)).status_code in (403, 404)
