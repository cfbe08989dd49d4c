"""Time-limited updates (notices, surface conditions, snow reports), subscribers, deliveries."""

import secrets

from django.db import models
from django.db.models import Q
from django.utils import timezone

from core.models import Audited, IdField
from trails.models import Trail, TrailSystem
from updates import enums


class UpdateQuerySet(models.QuerySet):
    def active(self, now=None):
        return self.filter(expiration_date__gt=now or timezone.now())


class Update(Audited):
    class Source(models.TextChoices):
        API = "api"
        WEB = "web"
        GROOMING = "grooming"
        IMPORT = "import"

    id = IdField(primary_key=True)
    trail_system = models.ForeignKey(TrailSystem, on_delete=models.CASCADE, related_name="updates")
    type = models.CharField(max_length=20, choices=enums.UpdateType.choices)
    trails = models.ManyToManyField(Trail, related_name="updates", blank=True)
    all_trails = models.BooleanField(default=False)
    expiration_date = models.DateTimeField(db_index=True)
    notify = models.BooleanField(default=False)
    source = models.CharField(max_length=20, choices=Source.choices, default=Source.API)

    # notice
    description = models.TextField(blank=True, default="")
    severity = models.CharField(
        max_length=10,
        choices=enums.NoticeSeverity.choices,
        blank=True,
        default="",
    )
    link_url = models.CharField(max_length=2000, blank=True, default="")
    # surfaceConditions: members of enums.SURFACE_CONDITIONS
    conditions = models.JSONField(default=list, blank=True)
    # snowReport, in the system's depth unit
    base_depth = models.FloatField(null=True, blank=True)
    twenty_four_hours = models.FloatField(null=True, blank=True)
    fourty_eight_hours = models.FloatField(null=True, blank=True)
    seven_days = models.FloatField(null=True, blank=True)
    season_total = models.FloatField(null=True, blank=True)
    last_snow_amount = models.FloatField(null=True, blank=True)
    upper_elevation_depth = models.FloatField(null=True, blank=True)
    last_snow_date = models.DateTimeField(null=True, blank=True)
    last_snow_making_date = models.DateTimeField(null=True, blank=True)
    last_snow_time = models.CharField(max_length=5, blank=True, default="")

    objects = UpdateQuerySet.as_manager()

    class Meta:
        ordering = ["expiration_date"]
        indexes = [
            models.Index(fields=["trail_system", "expiration_date"]),
            # The notification sweep reads the notify updates of the last hour, not them all.
            models.Index(fields=["created_on"], condition=Q(notify=True), name="update_notify"),
        ]

    def __str__(self) -> str:
        return f"{self.type} on {self.trail_system_id} until {self.expiration_date:%Y-%m-%d %H:%M}"

    @property
    def is_active(self) -> bool:
        return self.expiration_date > timezone.now()


def new_unsubscribe_token() -> str:
    return secrets.token_urlsafe(24)


class Subscriber(models.Model):
    """Someone who gets a message for every update posted with notify true."""

    id = IdField(primary_key=True)
    trail_system = models.ForeignKey(
        TrailSystem, on_delete=models.CASCADE, related_name="subscribers"
    )
    email = models.EmailField(blank=True, default="")
    phone = models.CharField(max_length=20, blank=True, default="", help_text="E.164")
    unsubscribe_token = models.CharField(
        max_length=64, unique=True, default=new_unsubscribe_token, editable=False
    )
    unsubscribed_on = models.DateTimeField(null=True, blank=True)
    # Set when the provider says the address or number can never be delivered to.
    email_failed_on = models.DateTimeField(null=True, blank=True)
    phone_failed_on = models.DateTimeField(null=True, blank=True)
    created_on = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["created_on"]
        constraints = [
            models.CheckConstraint(
                condition=~Q(email="") | ~Q(phone=""), name="subscriber_has_email_or_phone"
            )
        ]
        indexes = [
            models.Index(fields=["trail_system", "unsubscribed_on"]),
            # The web app's list of a million subscribers is read in this order.
            models.Index(fields=["created_on"], name="subscriber_created_on"),
        ]

    def __str__(self) -> str:
        return self.email or self.phone


class Delivery(models.Model):
    """One message of one update to one subscriber on one channel; never sent twice."""

    class Channel(models.TextChoices):
        EMAIL = "email"
        SMS = "sms"

    class State(models.TextChoices):
        PENDING = "pending"
        # Claimed by a worker; never claimed again while its lease runs, so a crash mid-send
        # cannot send twice (recovery after the lease: notifications.recover_stale_claims).
        SENDING = "sending"
        SENT = "sent"
        FAILED = "failed"
        # Not sent: the subscriber left, or the address failed permanently, before its turn.
        SKIPPED = "skipped"

    # No index of its own: the unique (update, subscriber, channel) index serves lookups by
    # update, and every index is one more write for each of a fan-out's state changes.
    update = models.ForeignKey(
        Update, on_delete=models.CASCADE, related_name="deliveries", db_index=False
    )
    subscriber = models.ForeignKey(Subscriber, on_delete=models.CASCADE, related_name="deliveries")
    channel = models.CharField(max_length=5, choices=Channel.choices)
    state = models.CharField(max_length=10, choices=State.choices, default=State.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    error = models.TextField(blank=True, default="")
    created_on = models.DateTimeField(default=timezone.now)
    sent_on = models.DateTimeField(null=True, blank=True)
    # When a worker claimed it (state sending); the rows of one claim share the instant.
    claimed_on = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "deliveries"
        constraints = [
            models.UniqueConstraint(
                fields=["update", "subscriber", "channel"], name="one_delivery_per_channel"
            )
        ]
        # The notification sweep looks for pending rows only, among millions of sent ones.
        indexes = [
            models.Index(
                fields=["created_on"], condition=Q(state="pending"), name="delivery_pending"
            ),
            models.Index(
                fields=["claimed_on"], condition=Q(state="sending"), name="delivery_sending"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.channel} of {self.update_id} to {self.subscriber_id}: {self.state}"


class PendingSubscription(models.Model):
    """A sign-up from the public map waiting for its contact to prove it is theirs: the e-mail
    address by a single-use link (24 hours), the phone by a 6-digit code sent by SMS. Only
    digests of the link token and the code are stored."""

    id = IdField(primary_key=True)
    trail_system = models.ForeignKey(
        TrailSystem, on_delete=models.CASCADE, related_name="pending_subscriptions"
    )
    email = models.EmailField(blank=True, default="")
    phone = models.CharField(max_length=20, blank=True, default="", help_text="E.164")
    email_token_digest = models.CharField(max_length=64, blank=True, default="", db_index=True)
    email_confirmed_on = models.DateTimeField(null=True, blank=True)
    code_digest = models.CharField(max_length=64, blank=True, default="")
    code_attempts = models.PositiveSmallIntegerField(default=0)
    phone_confirmed_on = models.DateTimeField(null=True, blank=True)
    # The subscriber made by the first confirmed contact; the second one joins it.
    subscriber = models.ForeignKey(
        Subscriber, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_on = models.DateTimeField(default=timezone.now, editable=False)
    expires_on = models.DateTimeField()
    code_expires_on = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_on"]
        constraints = [
            models.CheckConstraint(
                condition=~Q(email="") | ~Q(phone=""), name="pending_has_email_or_phone"
            )
        ]

    def __str__(self) -> str:
        return f"{self.email or self.phone} for {self.trail_system_id} (pending)"
