"""Sending: signed per Standard Webhooks, in order, retried with backoff (with jitter) under the
same webhook-id, the endpoint paused (and its Administrators told) after 24 hours of failures,
its messages kept; redirects not followed, 1 KB of a body kept, a hard deadline per attempt,
targets checked at send time."""

import io
import json
import socket
from datetime import timedelta

import pytest
from django.core import mail
from django.core.management import call_command
from django.db import transaction
from django.utils import timezone
from standardwebhooks import Webhook, WebhookVerificationError

from core.actors import Actor, Via
from tests.factories import MembershipFactory, TrailFactory, UserFactory
from trails import services as trail_services
from webhooks import delivery, sending, services
from webhooks.models import WebhookAttempt, WebhookDelivery, WebhookEndpoint, WebhookMessage
from webhooks.tasks import purge_webhook_messages, sweep_webhooks

pytestmark = pytest.mark.django_db

ACTOR = Actor("manager", Via.WEB_APP)


def register(system, url: str, events=("trail.status_changed",)):
    return services.create_endpoint(system=system, url=url, events=list(events), actor=ACTOR)


def close_a_trail(system, status: str = "Closed"):
    trail = TrailFactory(trail_system=system, status="Open")
    with transaction.atomic():
        trail_services.change_trail(trail=trail, status=status, actor=ACTOR)
    return trail


def retry_now(endpoint) -> None:
    """As if the retry's time had come."""
    WebhookDelivery.objects.filter(endpoint=endpoint, state="pending").update(
        next_attempt_on=timezone.now()
    )


def test_a_delivery_verifies_with_the_secret_shown_at_registration(system, receiver):
    target = receiver()
    created = register(system, target.url)
    trail = close_a_trail(system)

    run = delivery.send_due(created.endpoint.pk)

    assert run.attempts == 1
    (request,) = target.received
    payload = request.verified(created.secret)
    assert payload["type"] == "trail.status_changed"
    assert payload["data"]["trailId"] == trail.pk and payload["data"]["to"] == "Closed"
    assert request.path == "/hooks/trails"
    assert request.headers["content-type"] == "application/json"
    assert request.webhook_id.startswith("msg_")
    assert request.webhook_id == WebhookMessage.objects.get().pk
    with pytest.raises(WebhookVerificationError):
        Webhook(services.new_secret()).verify(request.body, request.headers)
    sent = WebhookDelivery.objects.get()
    assert (sent.state, sent.attempts, sent.response_status) == ("succeeded", 1, 200)
    assert sent.next_attempt_on is None and sent.duration_ms is not None
    attempt = WebhookAttempt.objects.get()
    assert (attempt.response_status, attempt.response_body) == (200, '{"ok": true}')


def test_a_failure_is_retried_with_backoff_under_the_same_id(system, receiver):
    target = receiver(statuses=[500, 503])
    endpoint = register(system, target.url).endpoint
    close_a_trail(system)
    started = timezone.now()

    delivery.send_due(endpoint.pk)
    pending = WebhookDelivery.objects.get()
    assert (pending.state, pending.attempts, pending.response_status) == ("pending", 1, 500)
    assert 4 <= (pending.next_attempt_on - started).total_seconds() <= 6  # the first within 30 s
    endpoint.refresh_from_db()
    assert endpoint.failing_since is not None

    assert delivery.send_due(endpoint.pk).attempts == 0  # not due yet
    retry_now(endpoint)
    delivery.send_due(endpoint.pk)
    pending.refresh_from_db()
    assert pending.attempts == 2
    assert 12 <= (pending.next_attempt_on - pending.last_attempt_on).total_seconds() <= 18
    retry_now(endpoint)
    delivery.send_due(endpoint.pk)

    pending.refresh_from_db()
    assert (pending.state, pending.attempts) == ("succeeded", 3)
    assert len(set(target.ids())) == 1 and len(target.ids()) == 3
    assert [a.response_status for a in pending.attempt_records.all()] == [500, 503, 200]
    endpoint.refresh_from_db()
    assert endpoint.failing_since is None


def test_the_retry_schedule(settings):
    settings.WEBHOOK_RETRY_SECONDS = 5
    delays = [delivery.retry_delay(n).total_seconds() for n in range(1, 10)]

    schedule = [5, 15, 45, 135, 405, 1215, 3645, 7200, 7200]
    assert all(0.8 * s <= d <= 1.2 * s for d, s in zip(delays, schedule, strict=True)), delays


def test_retries_end_24_hours_after_the_event_with_a_last_attempt_then(system, receiver):
    target = receiver(statuses=[500] * 3)
    endpoint = register(system, target.url).endpoint
    close_a_trail(system)
    soon = timezone.now() + timedelta(seconds=2)
    WebhookDelivery.objects.update(give_up_on=soon)

    delivery.send_due(endpoint.pk)
    pending = WebhookDelivery.objects.get()
    assert pending.next_attempt_on == soon  # not later than the window's end
    WebhookDelivery.objects.update(give_up_on=timezone.now(), next_attempt_on=timezone.now())
    delivery.send_due(endpoint.pk)

    pending.refresh_from_db()
    assert (pending.state, pending.attempts, pending.next_attempt_on) == ("failed", 2, None)


def test_each_wait_is_drawn_within_20_percent_of_the_schedule(settings):
    settings.WEBHOOK_RETRY_SECONDS = 100
    waits = []
    for _ in range(20):
        waits.append(delivery.retry_delay(1).total_seconds())
    assert all(80 <= wait <= 120 for wait in waits)
    assert len(set(waits)) > 1  # endpoints that failed together do not retry together


def test_a_failing_endpoint_backs_off_whole_and_then_sends_in_order(system, receiver):
    target = receiver(statuses=[500])
    endpoint = register(system, target.url).endpoint
    close_a_trail(system)
    close_a_trail(system)

    run = delivery.send_due(endpoint.pk)
    close_a_trail(system)  # an event while it backs off waits behind the retry

    assert run.attempts == 1  # not the second one now
    endpoint.refresh_from_db()
    assert endpoint.failures == 1 and endpoint.backoff_until is not None
    waiting = WebhookDelivery.objects.order_by("id")
    assert {row.next_attempt_on for row in waiting} == {endpoint.backoff_until}
    assert delivery.send_due(endpoint.pk).attempts == 0
    retry_now(endpoint)
    delivery.send_due(endpoint.pk)

    in_order = [row.message_id for row in waiting]
    assert target.ids() == [in_order[0], *in_order]
    assert set(waiting.values_list("state", flat=True)) == {"succeeded"}
    endpoint.refresh_from_db()
    assert (endpoint.failures, endpoint.failing_since, endpoint.backoff_until) == (0, None, None)


def test_a_day_of_failures_pauses_the_endpoint_keeps_its_messages_and_tells_once(
    system, receiver, django_capture_on_commit_callbacks
):
    system.language = "fr"
    system.save()
    member = UserFactory(email="admin@example.test")
    MembershipFactory(trail_system=system, user=member, role="Administrator")
    MembershipFactory(trail_system=system, user=UserFactory(), role="Trustee")
    target = receiver(statuses=[500] * 10)
    endpoint = register(system, target.url).endpoint
    close_a_trail(system)
    close_a_trail(system)
    WebhookEndpoint.objects.update(failing_since=timezone.now() - timedelta(hours=24), failures=9)

    with django_capture_on_commit_callbacks(execute=True):  # the notice goes on commit
        delivery.send_due(endpoint.pk)
        close_a_trail(system)  # while paused: kept, not sent
        assert sweep_webhooks() == 0

    endpoint.refresh_from_db()
    assert endpoint.active is True and endpoint.paused_on is not None
    assert endpoint.pause_reason == "answered 500" and endpoint.failures == 10
    assert len(target.received) == 1  # nothing more once paused
    rows = list(WebhookDelivery.objects.order_by("id"))
    assert [(row.state, row.next_attempt_on) for row in rows] == [("pending", None)] * 3
    (notice,) = mail.outbox
    assert sorted(notice.to) == sorted([system.owner.email, "admin@example.test"])
    assert notice.subject == f"Webhook en pause : {system.name}"
    assert target.url in notice.body and "answered 500" in notice.body
    assert f"/admin/webhooks/webhookendpoint/{endpoint.pk}/change/" in notice.body

    target.statuses.clear()
    with django_capture_on_commit_callbacks(execute=True):
        assert services.resume_endpoint(endpoint=endpoint, actor=ACTOR) == 3
    delivery.send_due(endpoint.pk)

    ids = [row.message_id for row in rows]
    assert target.ids() == [ids[0], *ids]  # the same webhook-ids, in order
    assert set(WebhookDelivery.objects.values_list("state", flat=True)) == {"succeeded"}
    assert len(mail.outbox) == 1


def test_send_the_failed_ones_again_resumes_and_sends_them_first_under_their_ids(system, receiver):
    target = receiver()
    endpoint = register(system, target.url).endpoint
    close_a_trail(system)
    close_a_trail(system)
    first, second = WebhookDelivery.objects.order_by("id")
    WebhookDelivery.objects.filter(pk=first.pk).update(state="failed", next_attempt_on=None)
    WebhookDelivery.objects.filter(pk=second.pk).update(next_attempt_on=None)
    WebhookEndpoint.objects.update(paused_on=timezone.now(), failures=12, pause_reason="x")

    assert services.send_failed_again(endpoint=endpoint, actor=ACTOR) == 1
    delivery.send_due(endpoint.pk)

    assert target.ids() == [first.message_id, second.message_id]
    endpoint.refresh_from_db()
    assert (endpoint.paused_on, endpoint.failures) == (None, 0)


def test_redirects_are_not_followed(system, receiver):
    elsewhere = receiver()
    target = receiver(statuses=[302], location=elsewhere.url)
    endpoint = register(system, target.url).endpoint
    close_a_trail(system)

    delivery.send_due(endpoint.pk)

    assert len(target.received) == 1 and elsewhere.received == []
    assert WebhookDelivery.objects.get().response_status == 302
    assert WebhookDelivery.objects.get().state == "pending"


def test_at_most_1_kb_of_a_response_body_is_kept(system, receiver):
    target = receiver(body=b"x" * 5000)
    endpoint = register(system, target.url).endpoint
    close_a_trail(system)
    close_a_trail(system)

    delivery.send_due(endpoint.pk)

    bodies = list(WebhookAttempt.objects.values_list("response_body", flat=True))
    assert bodies == ["x" * 1024, "x" * 1024]
    assert WebhookDelivery.objects.filter(state="succeeded").count() == 2


def test_no_answer_makes_the_other_due_deliveries_wait_for_the_retry(system):
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    endpoint = register(system, f"http://127.0.0.1:{port}/nobody").endpoint
    for _ in range(3):
        close_a_trail(system)

    run = delivery.send_due(endpoint.pk)

    assert run.attempts == 1  # not three connection failures in a row
    rows = list(WebhookDelivery.objects.order_by("id"))
    assert rows[0].error.startswith("no connection")
    assert {row.next_attempt_on for row in rows} == {rows[0].next_attempt_on}
    assert [row.attempts for row in rows] == [1, 0, 0]


@pytest.mark.parametrize(
    "slowly",
    [
        {"delay": 1.0},  # nothing, then the whole answer
        {"trickle": 0.1},  # a byte at a time, each well within any per-read timeout: 10 s
    ],
    ids=["delayed", "trickled"],
)
def test_an_answer_not_complete_at_the_attempts_deadline_is_cut_there(
    system, receiver, monkeypatch, slowly
):
    monkeypatch.setattr(sending, "TIMEOUT_SECONDS", 0.5)
    target = receiver(**slowly)
    endpoint = register(system, target.url).endpoint
    close_a_trail(system)

    delivery.send_due(endpoint.pk)

    row = WebhookDelivery.objects.get()
    assert (row.state, row.response_status) == ("pending", None)
    assert row.error == "no answer within 0.5 s"
    assert row.duration_ms < 1000


def test_the_target_is_checked_again_at_send_time(system, receiver, settings):
    target = receiver()
    endpoint = register(system, target.url).endpoint
    close_a_trail(system)
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = False

    delivery.send_due(endpoint.pk)

    assert target.received == []
    row = WebhookDelivery.objects.get()
    assert row.state == "pending"
    assert row.error == (
        "refused: 127.0.0.1 is a loopback address; webhooks are sent only to public addresses."
    )


def test_a_host_that_resolves_elsewhere_at_send_time_is_refused(system, settings, monkeypatch):
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = False
    answers = iter([["93.184.216.34"], ["10.0.0.1"]])

    def resolve(host, port, *args, **kwargs):
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port)) for a in next(answers)]

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    endpoint = register(system, "https://hooks.example.org/x").endpoint  # public then
    close_a_trail(system)

    delivery.send_due(endpoint.pk)

    assert WebhookDelivery.objects.get().error == (
        "refused: hooks.example.org (10.0.0.1) is a private address; webhooks are sent only "
        "to public addresses."
    )


def test_the_connection_goes_to_the_address_checked_never_a_second_answer(
    system, receiver, settings, monkeypatch
):
    """DNS rebinding: a first answer passes the check, a second would point at the receiver
    on 127.0.0.1. The request goes to the first answer's address, so nothing arrives."""
    target = receiver()
    port = target.server.server_port
    endpoint = register(system, f"http://rebind.example.org:{port}/x").endpoint
    close_a_trail(system)
    settings.WEBHOOK_ALLOW_PRIVATE_TARGETS = False
    monkeypatch.setattr(sending, "TIMEOUT_SECONDS", 0.5)
    real = socket.getaddrinfo
    asked = []

    def resolve(host, port, *args, **kwargs):
        asked.append(host)
        if host == "rebind.example.org":
            address = "192.0.0.9" if len(asked) == 1 else "127.0.0.1"  # 192.0.0.9: public
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolve)

    delivery.send_due(endpoint.pk)

    assert target.received == []
    assert asked.count("rebind.example.org") == 1
    assert set(asked) <= {"rebind.example.org", "192.0.0.9"}
    assert WebhookDelivery.objects.get().state == "pending"


def test_after_a_rotation_both_secrets_sign_for_a_day(system, receiver):
    target = receiver()
    created = register(system, target.url)
    rotated = services.rotate_secret(endpoint=created.endpoint, actor=ACTOR)
    close_a_trail(system)

    delivery.send_due(created.endpoint.pk)

    (request,) = target.received
    assert len(request.headers["webhook-signature"].split(" ")) == 2
    assert request.verified(rotated.secret) == request.verified(created.secret)
    WebhookEndpoint.objects.update(previous_secret_until=timezone.now())
    close_a_trail(system)
    delivery.send_due(created.endpoint.pk)
    with pytest.raises(WebhookVerificationError):
        target.received[1].verified(created.secret)
    target.received[1].verified(rotated.secret)


def test_a_test_event_goes_to_its_endpoint_even_when_off(system, receiver):
    target = receiver()
    created = register(system, target.url)
    services.change_endpoint(endpoint=created.endpoint, active=False, actor=ACTOR)

    services.send_test_event(endpoint=created.endpoint, actor=ACTOR)
    delivery.send_due(created.endpoint.pk)

    payload = target.received[0].verified(created.secret)
    assert payload["type"] == "webhook.test"
    assert payload["data"]["webhookId"] == created.endpoint.pk


def test_send_again_sends_under_the_same_id(system, receiver):
    target = receiver()
    endpoint = register(system, target.url).endpoint
    close_a_trail(system)
    delivery.send_due(endpoint.pk)

    services.send_again(deliveries=WebhookDelivery.objects.all(), actor=ACTOR)
    delivery.send_due(endpoint.pk)

    first, again = target.ids()
    assert first == again
    row = WebhookDelivery.objects.get()
    assert (row.state, row.attempt_records.count()) == ("succeeded", 2)


def test_without_a_broker_nothing_is_sent_in_the_caller_but_by_the_background_loop(
    system, receiver
):
    target = receiver()
    register(system, target.url)
    close_a_trail(system)  # its commit never came, so nothing was queued

    assert sweep_webhooks() == 0  # no broker: nothing is queued, and nothing sent here
    assert target.received == []
    out = io.StringIO()
    call_command("send_webhooks", stdout=out)  # what `make run` runs every second

    assert out.getvalue() == "Webhook attempts made: 1\n"
    assert len(target.received) == 1
    assert WebhookDelivery.objects.get().state == "succeeded"


def test_messages_older_than_30_days_are_purged(system, receiver):
    endpoint = register(system, receiver().url).endpoint
    close_a_trail(system)
    close_a_trail(system)
    old, recent = WebhookMessage.objects.order_by("created_on")
    WebhookMessage.objects.filter(pk=old.pk).update(created_on=timezone.now() - timedelta(days=31))
    WebhookDelivery.objects.update(state="succeeded")

    assert purge_webhook_messages() == 1

    assert list(WebhookMessage.objects.all()) == [recent]
    assert endpoint.deliveries.count() == 1


def test_the_payload_is_type_timestamp_data(system, receiver):
    target = receiver()
    created = register(system, target.url)
    close_a_trail(system)

    delivery.send_due(created.endpoint.pk)

    body = json.loads(target.received[0].body)
    assert list(body) == ["type", "timestamp", "data"]
