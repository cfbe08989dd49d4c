"""Outbound webhooks: the endpoints an Administrator registers, the messages (one per event,
recorded in the transaction of the change: the outbox), each endpoint's delivery of a message,
and every attempt at it."""

import secrets
import string

from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core.events import EVENT_TYPES
from core.models import ChannelKey, IdField
from trails.models import TrailSystem

# Not an event an endpoint subscribes to: sent on request, to one endpoint ("send a test event").
TEST_EVENT = "webhook.test"
EVENT_LABELS = {
    "trail.status_changed": _("A trail's or activity's status changed"),
    "point.status_changed": _("A point's status changed"),
    "update.created": _("An update was posted"),
    "update.deleted": _("An update was deleted"),
    "grooming.recorded": _("A grooming pass was recorded"),
    "grooming.started": _("A tracker started grooming"),
    "trail.groomed": _("A tracker groomed a trail"),
    "grooming.ended": _("A tracker's grooming session ended"),
    "system.published": _("A new map file was published"),
    "report.created": _("A rider sent a problem report"),
    "closure.started": _("A stretch of trail was closed"),
    "closure.ended": _("A closed stretch of trail reopened"),
    TEST_EVENT: _("Test event"),
}
assert set(EVENT_TYPES) < set(EVENT_LABELS)


def new_message_id() -> str:
    """The webhook-id of a message: Standard Webhooks' msg_ prefix and 24 random characters."""
    alphabet = string.ascii_letters + string.digits
    return "msg_" + "".join(secrets.choice(alphabet) for _ in range(24))


class WebhookEndpoint(models.Model):
    id = IdField(primary_key=True, verbose_name=_("ID"))
    trail_system = models.ForeignKey(
        TrailSystem,
        on_delete=models.CASCADE,
        related_name="webhook_endpoints",
        verbose_name=_("trail system"),
    )
    url = models.CharField(max_length=2000, verbose_name=_("URL"))
    # Event types (core.events.EVENT_TYPES), in that order.
    events = models.JSONField(default=list, verbose_name=_("events"))
    active = models.BooleanField(default=True, verbose_name=_("active"))
    # whsec_ and the base64 of 32 random bytes. Kept as it is (signing needs it); shown once.
    secret = models.CharField(max_length=100, verbose_name=_("signing secret"))
    # After a rotation, deliveries are signed with the old secret too until this time.
    previous_secret = models.CharField(max_length=100, blank=True, default="")
    previous_secret_until = models.DateTimeField(null=True, blank=True)
    # The start of the current run of failed attempts; cleared by a success.
    failing_since = models.DateTimeField(null=True, blank=True, verbose_name=_("failing since"))
    # Failed attempts in a row (the backoff's exponent); 0 after a success.
    failures = models.PositiveIntegerField(default=0, verbose_name=_("failed attempts in a row"))
    # While failing: nothing is sent before this time (exponential backoff with jitter).
    backoff_until = models.DateTimeField(null=True, blank=True, verbose_name=_("next attempt"))
    # Set when a long run of failures paused sending (webhooks.delivery); messages wait.
    paused_on = models.DateTimeField(null=True, blank=True, verbose_name=_("paused since"))
    # The last failure before the pause, as the attempts' list words it.
    pause_reason = models.CharField(
        max_length=500, blank=True, default="", verbose_name=_("paused because")
    )
    created_on = models.DateTimeField(
        default=timezone.now, editable=False, verbose_name=_("created on")
    )
    created_by = models.CharField(max_length=128, blank=True, default="")
    updated_on = models.DateTimeField(default=timezone.now, verbose_name=_("updated on"))
    updated_by = models.CharField(max_length=128, blank=True, default="")

    class Meta:
        verbose_name = _("webhook")
        verbose_name_plural = _("webhooks")
        ordering = ["created_on", "id"]
        indexes = [models.Index(fields=["trail_system", "active"])]

    def __str__(self) -> str:
        return self.url


class WebhookMessage(models.Model):
    """One event as it is sent: the exact body, whatever the endpoint or the attempt."""

    id = models.CharField(
        primary_key=True, max_length=40, default=new_message_id, verbose_name=_("webhook-id")
    )
    trail_system = models.ForeignKey(
        TrailSystem,
        on_delete=models.CASCADE,
        related_name="webhook_messages",
        verbose_name=_("trail system"),
    )
    type = models.CharField(max_length=40, verbose_name=_("event"))
    # {"type", "timestamp", "data"} as JSON text: the signed bytes are always the same.
    payload = models.TextField(verbose_name=_("payload"))
    created_on = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        verbose_name = _("webhook message")
        verbose_name_plural = _("webhook messages")

    def __str__(self) -> str:
        return self.id


class WebhookDelivery(models.Model):
    class State(models.TextChoices):
        PENDING = "pending", _("Pending")
        SUCCEEDED = "succeeded", _("Delivered")
        FAILED = "failed", _("Failed")

    endpoint = models.ForeignKey(
        WebhookEndpoint,
        on_delete=models.CASCADE,
        related_name="deliveries",
        verbose_name=_("webhook"),
    )
    message = models.ForeignKey(
        WebhookMessage,
        on_delete=models.CASCADE,
        related_name="deliveries",
        verbose_name=_("message"),
    )
    state = models.CharField(
        max_length=10, choices=State.choices, default=State.PENDING, verbose_name=_("state")
    )
    created_on = models.DateTimeField(default=timezone.now, verbose_name=_("time"))
    next_attempt_on = models.DateTimeField(
        default=timezone.now, null=True, blank=True, verbose_name=_("next attempt")
    )
    # Retries stop at this time (24 hours after the event, or after "send again").
    give_up_on = models.DateTimeField(verbose_name=_("retried until"))
    attempts = models.PositiveIntegerField(default=0, verbose_name=_("attempts"))
    # The last attempt's outcome.
    last_attempt_on = models.DateTimeField(null=True, blank=True, verbose_name=_("last attempt"))
    response_status = models.PositiveIntegerField(
        null=True, blank=True, verbose_name=_("response code")
    )
    duration_ms = models.PositiveIntegerField(
        null=True, blank=True, verbose_name=_("duration (ms)")
    )
    error = models.CharField(max_length=500, blank=True, default="", verbose_name=_("error"))

    class Meta:
        verbose_name = _("webhook delivery")
        verbose_name_plural = _("webhook deliveries")
        ordering = ["-created_on", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["endpoint", "message"], name="one_delivery_per_message")
        ]
        indexes = [
            models.Index(
                fields=["endpoint", "next_attempt_on"],
                condition=Q(state="pending"),
                name="pending_webhook_deliveries",
            ),
            models.Index(fields=["endpoint", "-created_on"], name="webhook_deliveries_by_time"),
        ]

    def __str__(self) -> str:
        return f"{self.message_id} to {self.endpoint_id}"


class WebhookAttempt(models.Model):
    """One request: when, the answer's code (none when there was no answer), how long it took,
    what went wrong, and at most 1 KB of the answer's body."""

    delivery = models.ForeignKey(
        WebhookDelivery,
        on_delete=models.CASCADE,
        related_name="attempt_records",
        verbose_name=_("delivery"),
    )
    at = models.DateTimeField(verbose_name=_("time"))
    response_status = models.PositiveIntegerField(
        null=True, blank=True, verbose_name=_("response code")
    )
    duration_ms = models.PositiveIntegerField(verbose_name=_("duration (ms)"))
    error = models.CharField(max_length=500, blank=True, default="", verbose_name=_("error"))
    response_body = models.CharField(
        max_length=1024, blank=True, default="", verbose_name=_("response body (first 1 KB)")
    )

    class Meta:
        verbose_name = _("webhook attempt")
        verbose_name_plural = _("webhook attempts")
        ordering = ["at", "id"]

    def __str__(self) -> str:
        return f"{self.delivery_id} at {self.at:%Y-%m-%d %H:%M:%S}"


class EndpointShare(ChannelKey):
    """The endpoint's place in the webhook channel's fair queue (core.fairqueue): whether a
    sending task is queued or running for it, and its recent use of the webhook workers."""

    endpoint = models.OneToOneField(
        WebhookEndpoint, on_delete=models.CASCADE, primary_key=True, related_name="share"
    )

    def __str__(self) -> str:
        return self.endpoint_id
