"""/trail-systems/:id/webhooks: list, create (the secret once), read, PATCH, DELETE, the
secret's rotation and resuming, for an Administrator with an ID token or a write-scoped key."""

import socket

import pytest
from django.utils import timezone
from standardwebhooks import Webhook

from tests.config.api_surface import assert_envelope
from tests.factories import MembershipFactory, TrailFactory, TrailSystemFactory, UserFactory
from webhooks.models import WebhookDelivery, WebhookEndpoint

pytestmark = pytest.mark.django_db

HOOK = "https://hooks.example.org/trails?token=abc"


def base(system) -> str:
    return f"/api/v1/trail-systems/{system.pk}/webhooks"


def create(client, system, **body):
    body = {"url": HOOK, "events": ["trail.status_changed"], **body}
    return client.post(base(system), body, format="json")


def test_create_answers_the_secret_once_in_the_standard_webhooks_form(system, manager):
    response = create(manager, system, events=["system.published", "trail.status_changed"])

    assert response.status_code == 201, response.content
    assert response["Cache-Control"] == "no-store"
    created = response.json()
    secret = created.pop("secret")
    assert secret.startswith("whsec_")
    Webhook(secret)  # the reference package takes it
    assert created["url"] == HOOK
    assert created["events"] == ["trail.status_changed", "system.published"]  # the docs' order
    assert created["active"] is True
    assert created["trailSystemId"] == system.pk
    assert created["failingSince"] is None and created["disabledOn"] is None
    assert created["createdBy"] == system.owner.uid

    listed = manager.get(base(system)).json()
    assert listed == {"trailSystemId": system.pk, "webhooks": [created]}
    one = manager.get(f"{base(system)}/{created['id']}")
    assert one.json() == created
    assert "secret" not in one.content.decode()


def test_patch_changes_only_the_fields_sent(system, manager):
    created = create(manager, system).json()
    url = f"{base(system)}/{created['id']}"

    changed = manager.patch(url, {"active": False}, format="json").json()
    assert changed["active"] is False and changed["url"] == HOOK
    changed = manager.patch(url, {"events": ["update.created", "update.created"]}, format="json")
    assert changed.json()["events"] == ["update.created"]
    assert changed.json()["active"] is False
    assert_envelope(manager.patch(url, {"nothing": 1}, format="json"), 400, "no_changes")


def test_turning_a_paused_webhook_on_again_resumes_it(system, manager):
    created = create(manager, system).json()
    WebhookEndpoint.objects.filter(pk=created["id"]).update(
        failing_since="2030-01-01T00:00Z",
        failures=12,
        paused_on="2030-01-02T00:00Z",
        pause_reason="answered 500",
    )
    url = f"{base(system)}/{created['id']}"
    paused = manager.get(url).json()
    assert (paused["pausedOn"], paused["pauseReason"]) == (
        "2030-01-02T00:00:00.000Z",
        "answered 500",
    )
    assert paused["disabledOn"] == paused["pausedOn"]  # the former name

    changed = manager.patch(url, {"active": True}, format="json").json()

    assert (changed["active"], changed["failingSince"], changed["pausedOn"]) == (True, None, None)
    assert (changed["pauseReason"], changed["disabledOn"]) == ("", None)


def test_resume_sends_what_waits_and_if_asked_the_failed_ones_again(system, manager):
    """The web app's Resume and "Send the failed ones again", through the API."""
    created = create(manager, system).json()
    trail = TrailFactory(trail_system=system, status="Open")
    for status in ("Closed", "Open", "Closed"):
        manager.patch(f"/api/v1/trails/{trail.pk}", {"status": status}, format="json")
    failed = WebhookDelivery.objects.order_by("id").first()
    WebhookDelivery.objects.filter(pk=failed.pk).update(state="failed", next_attempt_on=None)
    WebhookDelivery.objects.filter(state="pending").update(next_attempt_on=None)
    WebhookEndpoint.objects.update(
        paused_on=timezone.now(), failures=12, pause_reason="answered 500"
    )
    url = f"{base(system)}/{created['id']}/resume"

    resumed = manager.post(url)

    assert resumed.json() == {"ok": True, "id": created["id"], "waiting": 2, "sentAgain": 0}
    webhook = manager.get(f"{base(system)}/{created['id']}").json()
    assert (webhook["pausedOn"], webhook["failingSince"], webhook["active"]) == (None, None, True)
    assert all(row.next_attempt_on for row in WebhookDelivery.objects.filter(state="pending"))
    assert WebhookDelivery.objects.get(pk=failed.pk).state == "failed"

    again = manager.post(url, {"sendFailedAgain": True}, format="json")

    assert again.json() == {"ok": True, "id": created["id"], "waiting": 3, "sentAgain": 1}
    assert WebhookDelivery.objects.get(pk=failed.pk).state == "pending"
    assert_envelope(manager.post(url, {"sendFailedAgain": "yes"}, format="json"), 400)
    assert_envelope(manager.post(f"{base(system)}/nope/resume"), 404, "webhook_not_found")


def test_delete_removes_it_and_its_deliveries(system, manager):
    created = create(manager, system).json()
    url = f"{base(system)}/{created['id']}"

    assert manager.delete(url).json() == {"ok": True, "id": created["id"], "deleted": True}
    assert_envelope(manager.get(url), 404, "webhook_not_found")
    assert not WebhookEndpoint.objects.exists()


def test_rotation_answers_a_new_secret_and_keeps_the_old_one_signing_for_a_day(system, manager):
    created = create(manager, system).json()

    response = manager.post(f"{base(system)}/{created['id']}/rotate-secret")

    assert response.status_code == 200
    assert response["Cache-Control"] == "no-store"
    rotated = response.json()
    assert rotated["secret"].startswith("whsec_") and rotated["secret"] != created["secret"]
    endpoint = WebhookEndpoint.objects.get(pk=created["id"])
    assert endpoint.secret == rotated["secret"]
    assert endpoint.previous_secret == created["secret"]
    assert (endpoint.previous_secret_until - endpoint.updated_on).total_seconds() == 86400


def test_a_webhook_of_another_system_is_not_found(system, manager):
    other = TrailSystemFactory(owner=system.owner)
    created = create(manager, other).json()

    assert_envelope(manager.get(f"{base(system)}/{created['id']}"), 404, "webhook_not_found")
    assert_envelope(manager.get("/api/v1/trail-systems/nope/webhooks"), 404)


def test_a_trustee_needs_the_administrator_role(system, client_for):
    trustee = UserFactory()
    MembershipFactory(trail_system=system, user=trustee, role="Trustee")

    assert_envelope(client_for(trustee).get(base(system)), 403, "admin_required")
    assert_envelope(create(client_for(trustee), system), 403, "admin_required")


def test_an_administrator_member_and_a_write_key_may(system, client_for, key_client_for):
    member = UserFactory()
    MembershipFactory(trail_system=system, user=member, role="Administrator")

    assert create(client_for(member), system).status_code == 201
    assert key_client_for(system.owner).get(base(system)).status_code == 200


def test_a_read_only_key_may_not_even_list_them(system, key_client_for):
    reader = key_client_for(system.owner, scopes=["read"])

    assert_envelope(reader.get(base(system)), 403, "insufficient_scope")


def test_too_many_webhooks(system, manager):
    for _ in range(20):
        assert create(manager, system).status_code == 201

    assert_envelope(create(manager, system), 400, "too_many_webhooks")


@pytest.mark.parametrize(
    "body, message",
    [
        ({"events": ["trail.status_changed"]}, "url"),
        ({"url": HOOK}, "events"),
        ({"url": HOOK, "events": []}, "events"),
        ({"url": HOOK, "events": ["trail.closed"]}, "events[0]"),
        ({"url": HOOK, "events": "trail.status_changed"}, "events"),
        ({"url": HOOK, "events": ["trail.status_changed"], "active": "yes"}, "active"),
        ({"url": "ftp://example.org/x", "events": ["update.created"]}, "url"),
        ({"url": "https://user:pw@example.org/x", "events": ["update.created"]}, "url"),
        ({"url": "https://example.org/x#frag", "events": ["update.created"]}, "url"),
        ({"url": "//example.org/x", "events": ["update.created"]}, "url"),
        ({"url": "https://example.org:99999/x", "events": ["update.created"]}, "url"),
        ({"url": 12, "events": ["update.created"]}, "url"),
    ],
)
def test_bad_bodies_name_the_field(system, manager, body, message):
    response = manager.post(base(system), body, format="json")

    error = assert_envelope(response, 400)
    assert error["code"] in ("missing_field", "invalid_field")
    assert error["message"].startswith(f"{message}:"), error


@pytest.fixture
def private_targets_refused(settings):
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = False


@pytest.mark.parametrize(
    "url, reason",
    [
        ("http://127.0.0.1:8080/hook", "127.0.0.1 is a loopback address"),
        ("https://10.0.0.1/hook", "10.0.0.1 is a private address"),
        (
            "http://169.254.169.254/latest/meta-data/",
            "169.254.169.254 is a link-local address",
        ),
        ("http://[::1]:9000/hook", "::1 is a loopback address"),
        ("https://localhost/hook", "localhost (127.0.0.1) is a loopback address"),
        ("https://[::ffff:10.0.0.1]/hook", "::ffff:10.0.0.1 is a private address"),
        ("https://224.0.0.1/hook", "224.0.0.1 is a multicast address"),
        ("https://100.64.0.1/hook", "100.64.0.1 is not a public address"),
    ],
)
def test_targets_on_non_public_addresses_are_refused(
    system, manager, private_targets_refused, url, reason
):
    error = assert_envelope(create(manager, system, url=url), 400, "invalid_field")

    assert error["message"] == f"url: {reason}; webhooks are sent only to public addresses."
    assert not WebhookEndpoint.objects.exists()


def test_a_host_resolving_to_a_private_address_is_refused(
    system, manager, private_targets_refused, monkeypatch
):
    def resolve(host, port, *args, **kwargs):
        assert host == "hooks.example.org"
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.1.2.3", port))]

    monkeypatch.setattr(socket, "getaddrinfo", resolve)

    error = assert_envelope(create(manager, system), 400, "invalid_field")
    assert "hooks.example.org (10.1.2.3) is a private address" in error["message"]


def test_a_host_that_does_not_resolve_is_refused(system, manager, private_targets_refused):
    error = assert_envelope(
        create(manager, system, url="https://no-such-host.invalid/x"), 400, "invalid_field"
    )
    assert error["message"].startswith("url: the host no-such-host.invalid cannot be resolved")


def test_a_patch_to_a_private_address_is_refused(system, manager, settings):
    created = create(manager, system).json()
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = False

    response = manager.patch(
        f"{base(system)}/{created['id']}", {"url": "http://10.0.0.1/"}, format="json"
    )

    assert_envelope(response, 400, "invalid_field")
    assert WebhookEndpoint.objects.get().url == HOOK


def test_only_https_under_the_production_profile(system, manager, settings):
    settings.PRODUCTION = True

    error = assert_envelope(
        create(manager, system, url="http://hooks.example.org/x"), 400, "invalid_field"
    )
    assert error["message"] == "url: must be an https:// URL."
    assert create(manager, system).status_code == 201


def test_turning_a_webhook_off_fails_its_pending_deliveries(system, manager):
    created = create(manager, system).json()
    trail = TrailFactory(trail_system=system, status="Open")
    manager.patch(f"/api/v1/trails/{trail.pk}", {"status": "Closed"}, format="json")
    assert WebhookDelivery.objects.get().state == "pending"

    manager.patch(f"{base(system)}/{created['id']}", {"active": False}, format="json")

    delivery = WebhookDelivery.objects.get()
    assert delivery.state == "failed"
    assert delivery.error == "not sent: the webhook was turned off"
