"""Writes of webhooks: an Administrator's endpoints (URL, event types, active), the signing
secret (shown once, at creation and at each rotation), a test event, "send again", and
resuming a paused endpoint."""

import base64
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from core import queueing
from core.actors import Actor
from core.errors import Invalid
from core.events import EVENT_TYPES, Event
from trails.models import TrailSystem
from webhooks import outbox
from webhooks.delivery import ROTATION_OVERLAP
from webhooks.models import TEST_EVENT, WebhookDelivery, WebhookEndpoint
from webhooks.targets import check_url

# Endpoints per trail system: more than a club's site, its lodge screens and its chat.
MAX_ENDPOINTS = 20
SECRET_BYTES = 32


def new_secret() -> str:
    """Standard Webhooks' form: whsec_ and the base64 of the key's bytes."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


@dataclass(frozen=True)
class WithSecret:
    """An endpoint and its secret in plaintext, for the one answer that shows it."""

    endpoint: WebhookEndpoint
    secret: str


def event_types(events: Sequence[str]) -> list[str]:
    """The types an endpoint subscribes to, each once, in EVENT_TYPES' order."""
    unknown = [event for event in events if event not in EVENT_TYPES]
    if unknown:
        raise Invalid(
            "invalid_field",
            f"unknown event type {unknown[0]!r}; one of {', '.join(EVENT_TYPES)}.",
            field="events",
        )
    if not events:
        raise Invalid("invalid_field", "at least one event type.", field="events")
    return [event for event in EVENT_TYPES if event in events]


@transaction.atomic
def create_endpoint(
    *, system: TrailSystem, url: str, events: Sequence[str], actor: Actor, active: bool = True
) -> WithSecret:
    # The system's row lock: concurrent creates cannot pass the limit.
    TrailSystem.objects.select_for_update().filter(pk=system.pk).first()
    if WebhookEndpoint.objects.filter(trail_system=system).count() >= MAX_ENDPOINTS:
        raise Invalid("too_many_webhooks", f"A trail system has at most {MAX_ENDPOINTS} webhooks.")
    secret = new_secret()
    endpoint = WebhookEndpoint.objects.create(
        trail_system=system,
        url=check_url(url),
        events=event_types(events),
        active=active,
        secret=secret,
        created_by=actor.uid,
        updated_by=actor.uid,
    )
    return WithSecret(endpoint, secret)


@transaction.atomic
def change_endpoint(
    *,
    endpoint: WebhookEndpoint,
    actor: Actor,
    url: str | None = None,
    events: Sequence[str] | None = None,
    active: bool | None = None,
) -> None:
    """PATCH: only the fields given (None: as it is). Turning an endpoint on again clears its
    failures; turning it off fails its pending deliveries (they can be sent again)."""
    fields = {}
    if url is not None:
        fields["url"] = check_url(url)
    if events is not None:
        fields["events"] = event_types(events)
    if active is not None:
        fields["active"] = active
        if active:
            fields |= NOT_FAILING
            _due_now(endpoint)
        else:
            _fail_pending(endpoint, "not sent: the webhook was turned off")
    WebhookEndpoint.objects.filter(pk=endpoint.pk).update(
        **fields, updated_on=timezone.now(), updated_by=actor.uid
    )


# An endpoint that works as far as anyone knows: no failures, no backoff, not paused.
NOT_FAILING = {
    "failing_since": None,
    "failures": 0,
    "backoff_until": None,
    "paused_on": None,
    "pause_reason": "",
}


def _due_now(endpoint: WebhookEndpoint) -> None:
    """Its waiting deliveries go now, in order, and are retried for a day from now."""
    now = timezone.now()
    WebhookDelivery.objects.filter(endpoint=endpoint, state=WebhookDelivery.State.PENDING).update(
        next_attempt_on=now, give_up_on=now + outbox.RETRY_WINDOW
    )
    queueing.on_commit(lambda: outbox.queue_sending([endpoint.pk]))


@transaction.atomic
def resume_endpoint(*, endpoint: WebhookEndpoint, actor: Actor) -> int:
    """Resume a paused (or backing-off) endpoint: its waiting messages go now, in order,
    under their webhook-id. Returns how many are waiting."""
    WebhookEndpoint.objects.filter(pk=endpoint.pk).update(
        **NOT_FAILING, updated_on=timezone.now(), updated_by=actor.uid
    )
    _due_now(endpoint)
    return endpoint.deliveries.filter(state=WebhookDelivery.State.PENDING).count()


@transaction.atomic
def send_failed_again(*, endpoint: WebhookEndpoint, actor: Actor) -> int:
    """Every failed delivery of the endpoint (kept 30 days) again, under its webhook-id, with
    the waiting ones, oldest first; resumes the endpoint. Returns how many failed ones."""
    failed = list(endpoint.deliveries.filter(state=WebhookDelivery.State.FAILED))
    count = send_again(deliveries=failed, actor=actor)
    resume_endpoint(endpoint=endpoint, actor=actor)
    return count


def _fail_pending(endpoint: WebhookEndpoint, reason: str) -> None:
    WebhookDelivery.objects.filter(endpoint=endpoint, state=WebhookDelivery.State.PENDING).update(
        state=WebhookDelivery.State.FAILED, next_attempt_on=None, error=reason
    )


@transaction.atomic
def delete_endpoint(*, endpoint: WebhookEndpoint, actor: Actor) -> None:
    """Gone at once, with its deliveries; nothing more is sent to it. Its waiting deliveries
    are locked first: an attempt being recorded meanwhile is recorded before they go, or
    not at all (the sender then stops), never left pointing at a deleted delivery."""
    waiting = WebhookDelivery.objects.filter(endpoint=endpoint, state=WebhookDelivery.State.PENDING)
    list(waiting.select_for_update().values_list("pk", flat=True))
    WebhookEndpoint.objects.filter(pk=endpoint.pk).delete()


@transaction.atomic
def rotate_secret(*, endpoint: WebhookEndpoint, actor: Actor) -> WithSecret:
    """A new secret, shown once. For 24 hours deliveries carry a signature by the old secret
    too, so a receiver can switch to the new one without rejecting anything meanwhile."""
    locked = WebhookEndpoint.objects.select_for_update().get(pk=endpoint.pk)
    secret = new_secret()
    now = timezone.now()
    WebhookEndpoint.objects.filter(pk=endpoint.pk).update(
        secret=secret,
        previous_secret=locked.secret,
        previous_secret_until=now + ROTATION_OVERLAP,
        updated_on=now,
        updated_by=actor.uid,
    )
    locked.refresh_from_db()
    return WithSecret(locked, secret)


@transaction.atomic
def send_test_event(*, endpoint: WebhookEndpoint, actor: Actor) -> WebhookDelivery:
    """A `webhook.test` event to this endpoint only (active or not), sent and retried like
    any other."""
    event = Event(
        TEST_EVENT,
        {
            "trailSystemId": endpoint.trail_system_id,
            "webhookId": endpoint.pk,
            "message": "A test event from the trail status service.",
        },
    )
    (delivery,) = outbox.record([endpoint], [event], timezone.now(), wants=lambda *_: True)
    return delivery


@transaction.atomic
def send_again(*, deliveries: Iterable[WebhookDelivery], actor: Actor) -> int:
    """Each delivery again, under its webhook-id, at once and then retried for 24 hours
    like a new one; returns how many."""
    now = timezone.now()
    ids = [delivery.pk for delivery in deliveries]
    WebhookDelivery.objects.filter(pk__in=ids).update(
        state=WebhookDelivery.State.PENDING,
        next_attempt_on=now,
        give_up_on=now + outbox.RETRY_WINDOW,
        attempts=0,
        error="",
    )
    endpoint_ids = set(
        WebhookDelivery.objects.filter(pk__in=ids).values_list("endpoint_id", flat=True)
    )
    # A person asked for these to be sent: a paused endpoint is resumed.
    paused = WebhookEndpoint.objects.filter(pk__in=endpoint_ids).exclude(paused_on=None)
    for endpoint in paused:
        resume_endpoint(endpoint=endpoint, actor=actor)
    queueing.on_commit(lambda: outbox.queue_sending(endpoint_ids))
    return len(ids)
