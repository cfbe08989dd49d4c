"""The webhook outbox: each announced event becomes a message, and a pending delivery of it
for every active endpoint of the system subscribed to its type, in the transaction of the
change; the sending is queued once that transaction commits, through the channel's fair
queue (webhooks.tasks). A broker outage, or a worker killed mid-send, delays a delivery but
never loses it: the beat sweep queues whatever is due and still pending."""

from collections.abc import Callable, Iterable
from datetime import datetime, timedelta

import orjson
from django.utils import timezone

from core import queueing
from core.dates import iso_ms
from core.events import Event
from webhooks.models import WebhookDelivery, WebhookEndpoint, WebhookMessage
from webhooks.tasks import queue_sending

# Retries of a delivery stop this long after its event (or after "send again").
RETRY_WINDOW = timedelta(hours=24)


def payload(event: Event, now: datetime) -> str:
    """The body Standard Webhooks recommends: {type, timestamp, data}, as compact JSON."""
    return orjson.dumps({"type": event.type, "timestamp": iso_ms(now), "data": event.data}).decode()


def first_attempt(endpoint: WebhookEndpoint, now: datetime) -> datetime | None:
    """At once; behind the endpoint's retry while it backs off; none while it is paused (its
    messages wait, in order, until it is resumed)."""
    if endpoint.paused_on is not None:
        return None
    if endpoint.backoff_until is not None and endpoint.backoff_until > now:
        return endpoint.backoff_until
    return now


def subscribed(endpoint: WebhookEndpoint, event: Event) -> bool:
    return event.type in endpoint.events


def record(
    endpoints: list[WebhookEndpoint],
    events: Iterable[Event],
    now: datetime,
    wants: Callable[[WebhookEndpoint, Event], bool] = subscribed,
) -> list[WebhookDelivery]:
    """A message per event that an endpoint wants, and its delivery to each such endpoint,
    in the caller's transaction; the sending is queued once it commits (queue_sending is
    imported here for the services, which queue a resumed endpoint's too)."""
    messages, deliveries = [], []
    for event in events:
        wanted = [endpoint for endpoint in endpoints if wants(endpoint, event)]
        if not wanted:
            continue
        message = WebhookMessage(
            trail_system_id=wanted[0].trail_system_id,
            type=event.type,
            payload=payload(event, now),
            created_on=now,
        )
        messages.append(message)
        deliveries += [
            WebhookDelivery(
                endpoint=endpoint,
                message=message,
                created_on=now,
                next_attempt_on=first_attempt(endpoint, now),
                give_up_on=now + RETRY_WINDOW,
            )
            for endpoint in wanted
        ]
    WebhookMessage.objects.bulk_create(messages)
    WebhookDelivery.objects.bulk_create(deliveries)
    endpoint_ids = sorted(
        {delivery.endpoint_id for delivery in deliveries if delivery.next_attempt_on == now}
    )
    if endpoint_ids:
        # A broker error leaves the delivery to the sweep.
        queueing.on_commit(lambda: queue_sending(endpoint_ids))
    return deliveries


def on_events_announced(
    sender, *, system_id: str, types: frozenset[str], builds: tuple[Callable, ...], **kwargs
) -> None:
    """Receiver of core.events.events_announced, inside the writing transaction: each batch's
    messages have their own time, in order."""
    endpoints = [
        endpoint
        for endpoint in WebhookEndpoint.objects.filter(trail_system_id=system_id, active=True).only(
            "id", "trail_system_id", "events", "backoff_until", "paused_on"
        )
        if types.intersection(endpoint.events)
    ]
    for build in builds if endpoints else ():
        record(endpoints, build(), timezone.now())
