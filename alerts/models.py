"""Riders' alerts: a follower (one push subscription, e-mail address or phone number, no
account) with its rules, the events that may concern followers (recorded in the transaction
of the change: an outbox), each message to a follower, and each push service's state."""

from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core.models import ChannelKey, IdField
from trails.models import Trail, TrailSystem


class Channel(models.TextChoices):
    PUSH = "push", _("Web Push")
    EMAIL = "email", _("E-mail")
    SMS = "sms", _("SMS")


class Follower(models.Model):
    """A rider's way of being told, on one system. Push is active at once; e-mail and SMS
    once confirmed (confirmed_on). An address has at most one confirmed follower and one
    waiting for confirmation, whose rules replace the confirmed one's when it is confirmed
    (so a sign-up nobody confirms changes nothing)."""

    id = IdField(primary_key=True, verbose_name=_("ID"))
    trail_system = models.ForeignKey(
        TrailSystem, on_delete=models.CASCADE, related_name="followers"
    )
    channel = models.CharField(max_length=10, choices=Channel.choices)
    # Push: the subscription (endpoint, and its keys as the browser gives them, base64url).
    endpoint = models.CharField(max_length=2000, blank=True, default="")
    p256dh = models.CharField(max_length=100, blank=True, default="")
    auth = models.CharField(max_length=50, blank=True, default="")
    # E-mail and SMS: the address or the E.164 number.
    address = models.CharField(max_length=254, blank=True, default="")
    # E-mail and SMS: a digest of the confirmation token (link) or code, until confirmed;
    # when they expire (a link in 24 hours, a code in 30 minutes), and the codes tried.
    confirmation_digest = models.CharField(max_length=64, blank=True, default="")
    confirmation_expires_on = models.DateTimeField(null=True, blank=True)
    confirmation_attempts = models.PositiveSmallIntegerField(default=0)
    confirmed_on = models.DateTimeField(null=True, blank=True)
    quiet_from = models.TimeField(null=True, blank=True)
    quiet_to = models.TimeField(null=True, blank=True)
    once_per_day = models.BooleanField(default=False)
    # When the last message that went at once was made: a burst after it is coalesced.
    last_message_on = models.DateTimeField(null=True, blank=True)
    created_on = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        verbose_name = _("follower")
        verbose_name_plural = _("followers")
        indexes = [
            models.Index(fields=["trail_system", "confirmed_on"]),
            # A system's fan-out goes through its confirmed followers in id order, a chunk at
            # a time (alerts.fanout).
            models.Index(
                fields=["trail_system", "id"],
                condition=Q(confirmed_on__isnull=False),
                name="confirmed_followers_in_order",
            ),
            models.Index(
                fields=["confirmation_expires_on"],
                condition=Q(confirmed_on=None),
                name="unconfirmed_followers",
            ),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["trail_system", "endpoint"],
                condition=Q(channel="push"),
                name="one_follower_per_push_subscription",
            ),
            models.UniqueConstraint(
                fields=["trail_system", "channel", "address"],
                condition=~Q(channel="push") & Q(confirmed_on__isnull=False),
                name="one_confirmed_follower_per_address",
            ),
            models.UniqueConstraint(
                fields=["trail_system", "channel", "address"],
                condition=~Q(channel="push") & Q(confirmed_on__isnull=True),
                name="one_unconfirmed_follower_per_address",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.channel} follower {self.pk}"


class Rule(models.Model):
    """What a follower wants to hear about: a trail (none: the whole system), an activity
    (none: any), the kinds of change, and for `groomed` a condition, for `snow` a depth."""

    follower = models.ForeignKey(Follower, on_delete=models.CASCADE, related_name="rules")
    trail = models.ForeignKey(
        Trail, on_delete=models.CASCADE, null=True, blank=True, related_name="alert_rules"
    )
    activity = models.CharField(max_length=40, blank=True, default="")
    on = models.JSONField(default=list)
    condition = models.CharField(max_length=40, blank=True, default="")
    snow_cm = models.FloatField(null=True, blank=True)
    # Once a day: when this rule last gave a message.
    last_alert_on = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("alert rule")
        verbose_name_plural = _("alert rules")
        indexes = [models.Index(fields=["trail"])]

    def __str__(self) -> str:
        return f"{', '.join(self.on)} of {self.trail_id or 'the system'}"


class AlertEvent(models.Model):
    """A change followers may want to hear of, recorded in the transaction of the change;
    fanned out to followers once it commits (alerts.fanout)."""

    trail_system = models.ForeignKey(
        TrailSystem, on_delete=models.CASCADE, related_name="alert_events"
    )
    type = models.CharField(max_length=40)
    data = models.JSONField()
    created_on = models.DateTimeField(default=timezone.now)
    fanned_out_on = models.DateTimeField(null=True, blank=True)
    # How far its fan-out got: the last follower (in id order) whose messages are committed.
    fanned_out_to = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        indexes = [
            models.Index(
                fields=["trail_system", "id"],
                condition=Q(fanned_out_on=None),
                name="alert_events_to_fan_out",
            )
        ]

    def __str__(self) -> str:
        return f"{self.type} of {self.trail_system_id}"


class Alert(models.Model):
    """One message to one follower: one change, or several coalesced (a burst, or what quiet
    hours held), sent at due_on through the follower's channel's compartment (`queue`: the
    push service's origin, or the channel's name), in the follower's lane of it (`lane`:
    the lanes of one system's compartment are sent at once, by several workers)."""

    class State(models.TextChoices):
        PENDING = "pending", _("Pending")
        SENT = "sent", _("Sent")
        REFUSED = "refused", _("Refused")

    follower = models.ForeignKey(Follower, on_delete=models.CASCADE, related_name="alerts")
    queue = models.CharField(max_length=300)
    # alerts.fanout.lane_of(follower): every alert of a follower in one lane, in order.
    lane = models.PositiveSmallIntegerField(default=0)
    state = models.CharField(max_length=10, choices=State.choices, default=State.PENDING)
    # The changes it tells of (alerts.texts.Item as JSON), in order.
    items = models.JSONField(default=list)
    # It follows a message sent a moment ago ("11 more trails open").
    follows = models.BooleanField(default=False)
    # Held by quiet hours (until due_on).
    held = models.BooleanField(default=False)
    urgent = models.BooleanField(default=False)
    due_on = models.DateTimeField(default=timezone.now)
    created_on = models.DateTimeField(default=timezone.now)
    attempts = models.PositiveIntegerField(default=0)
    sent_on = models.DateTimeField(null=True, blank=True)
    response_status = models.PositiveIntegerField(null=True, blank=True)
    error = models.CharField(max_length=500, blank=True, default="")

    class Meta:
        indexes = [
            # In sending order, so that a batch of a lane holding 100,000 alerts due at the
            # same moment is read from the index, not sorted from all of them.
            models.Index(
                fields=["queue", "lane", "due_on", "id"],
                condition=Q(state="pending"),
                name="pending_alerts_in_order",
            ),
            models.Index(fields=["follower", "state"], name="alerts_of_follower"),
        ]

    def __str__(self) -> str:
        return f"alert {self.pk} to {self.follower_id}"


class AlertQueue(models.Model):
    """A compartment's failures: a push service (or the e-mail or SMS sender) that failed
    backs off as a whole, as a webhook endpoint does, and holds up no other."""

    name = models.CharField(primary_key=True, max_length=300)
    failures = models.PositiveIntegerField(default=0)
    backoff_until = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return self.name


class AlertShare(ChannelKey):
    """A lane of a system's alerts through one compartment (a push service, or the e-mail or
    SMS channel): its place in the alerts channel's fair queue (core.fairqueue), so that a
    system's fan-out is served in turn with every other's, several of its lanes at once.
    Its key is alerts.delivery.share_key(system, queue, lane)."""

    key = models.CharField(primary_key=True, max_length=365)

    def __str__(self) -> str:
        return self.key


class SystemAlerts(models.Model):
    """Present when a system's owner has turned alerts off: nothing is recorded or sent."""

    trail_system = models.OneToOneField(
        TrailSystem, on_delete=models.CASCADE, primary_key=True, related_name="alerts_off"
    )
    turned_off_on = models.DateTimeField(default=timezone.now)
    turned_off_by = models.CharField(max_length=128, blank=True, default="")

    def __str__(self) -> str:
        return f"alerts off for {self.trail_system_id}"


class AlertCount(models.Model):
    """How many alerts of a channel had an outcome (alerts.tally), since the start."""

    channel = models.CharField(max_length=10, choices=Channel.choices)
    outcome = models.CharField(max_length=10)
    count = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["channel", "outcome"], name="one_count_per_outcome")
        ]

    def __str__(self) -> str:
        return f"{self.channel} {self.outcome}: {self.count}"
