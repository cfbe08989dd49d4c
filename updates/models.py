"""Time-limited updates (notices, surface conditions, snow reports), subscribers, deliveries."""

import secrets

from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext_lazy as _

from core.models import Audited, ChannelKey, IdField
from trails.models import Trail, TrailSystem
from updates import enums


class UpdateQuerySet(models.QuerySet):
    def active(self, now=None):
        return self.filter(expiration_date__gt=now or timezone.now())


class Update(Audited):
    class Source(models.TextChoices):
        API = "api", _("API")
        WEB = "web", _("Web app")
        GROOMING = "grooming", _("Grooming")
        IMPORT = "import", _("Import")

    id = IdField(primary_key=True, verbose_name=_("ID"))
    trail_system = models.ForeignKey(
        TrailSystem,
        on_delete=models.CASCADE,
        related_name="updates",
        verbose_name=_("trail system"),
    )
    type = models.CharField(max_length=20, choices=enums.UpdateType.choices, verbose_name=_("type"))
    trails = models.ManyToManyField(
        Trail, related_name="updates", blank=True, verbose_name=_("trails")
    )
    all_trails = models.BooleanField(default=False, verbose_name=_("all trails"))
    expiration_date = models.DateTimeField(db_index=True, verbose_name=_("expiration date"))
    notify = models.BooleanField(default=False, verbose_name=_("notify"))
    source = models.CharField(
        max_length=20, choices=Source.choices, default=Source.API, verbose_name=_("source")
    )
    # When the notification fan-out of a notify update was handed to the broker; empty while
    # a broker outage keeps it from being queued (updates.tasks queues it again).
    fan_out_queued_on = models.DateTimeField(
        null=True, blank=True, editable=False, verbose_name=_("fan-out queued on")
    )

    # notice
    description = models.TextField(blank=True, default="", verbose_name=_("description"))
    severity = models.CharField(
        max_length=10,
        choices=enums.NoticeSeverity.choices,
        blank=True,
        default="",
        verbose_name=_("severity"),
    )
    link_url = models.CharField(
        max_length=2000, blank=True, default="", verbose_name=_("link address")
    )
    # surfaceConditions: members of enums.SURFACE_CONDITIONS
    conditions = models.JSONField(default=list, blank=True, verbose_name=_("surface conditions"))
    # snowReport, in the system's depth unit
    base_depth = models.FloatField(null=True, blank=True, verbose_name=_("base depth"))
    twenty_four_hours = models.FloatField(null=True, blank=True, verbose_name=_("last 24 hours"))
    fourty_eight_hours = models.FloatField(null=True, blank=True, verbose_name=_("last 48 hours"))
    seven_days = models.FloatField(null=True, blank=True, verbose_name=_("last 7 days"))
    season_total = models.FloatField(null=True, blank=True, verbose_name=_("season total"))
    last_snow_amount = models.FloatField(null=True, blank=True, verbose_name=_("last snow amount"))
    upper_elevation_depth = models.FloatField(
        null=True, blank=True, verbose_name=_("upper elevation depth")
    )
    last_snow_date = models.DateTimeField(null=True, blank=True, verbose_name=_("last snow date"))
    last_snow_making_date = models.DateTimeField(
        null=True, blank=True, verbose_name=_("last snow making date")
    )
    last_snow_time = models.CharField(
        max_length=5, blank=True, default="", verbose_name=_("last snow time")
    )

    objects = UpdateQuerySet.as_manager()

    class Meta:
        verbose_name = _("update")
        verbose_name_plural = _("updates")
        ordering = ["expiration_date"]
        indexes = [
            models.Index(fields=["trail_system", "expiration_date"]),
            # The notification sweep reads the notify updates of the last hour, not them all.
            models.Index(fields=["created_on"], condition=Q(notify=True), name="update_notify"),
        ]

    def __str__(self) -> str:
        """Lists that show updates read their systems with them (list_select_related); the
        expiry is in the zone the page shows its times in (webapp.zones), written as the
        web app writes times, and that zone is named: a manager reads it as the system's time."""
        expiry = date_format(timezone.localtime(self.expiration_date), "DATETIME_FORMAT")
        return _("%(type)s on %(system)s until %(date)s") % {
            "type": self.get_type_display(),
            "system": self.trail_system.name,
            "date": f"{expiry} {timezone.get_current_timezone_name()}",
        }

    @property
    def is_active(self) -> bool:
        return self.expiration_date > timezone.now()


def new_unsubscribe_token() -> str:
    return secrets.token_urlsafe(24)


class Subscriber(models.Model):
    """Someone who gets a message for every update posted with notify true."""

    id = IdField(primary_key=True, verbose_name=_("ID"))
    trail_system = models.ForeignKey(
        TrailSystem,
        on_delete=models.CASCADE,
        related_name="subscribers",
        verbose_name=_("trail system"),
    )
    email = models.EmailField(blank=True, default="", verbose_name=_("e-mail address"))
    phone = models.CharField(
        max_length=20, blank=True, default="", help_text=_("E.164"), verbose_name=_("phone number")
    )
    unsubscribe_token = models.CharField(
        max_length=64,
        unique=True,
        default=new_unsubscribe_token,
        editable=False,
        verbose_name=_("unsubscribe token"),
    )
    unsubscribed_on = models.DateTimeField(null=True, blank=True, verbose_name=_("unsubscribed on"))
    # Set when the provider says the address or number can never be delivered to.
    email_failed_on = models.DateTimeField(
        null=True, blank=True, verbose_name=_("e-mail failed on")
    )
    phone_failed_on = models.DateTimeField(null=True, blank=True, verbose_name=_("phone failed on"))
    created_on = models.DateTimeField(
        default=timezone.now, editable=False, verbose_name=_("created on")
    )

    class Meta:
        verbose_name = _("subscriber")
        verbose_name_plural = _("subscribers")
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
        EMAIL = "email", _("E-mail")
        SMS = "sms", _("SMS")

    class State(models.TextChoices):
        PENDING = "pending", _("Pending")
        # Claimed by a worker; never claimed again while its lease runs, so a crash mid-send
        # cannot send twice (recovery after the lease: notifications.recover_stale_claims).
        SENDING = "sending", _("Sending")
        SENT = "sent", _("Sent")
        FAILED = "failed", _("Failed")
        # Not sent: the subscriber left, or the address failed permanently, before its turn.
        SKIPPED = "skipped", _("Skipped")

    # No index of its own: the unique (update, subscriber, channel) index serves lookups by
    # update, and every index is one more write for each of a fan-out's state changes.
    update = models.ForeignKey(
        Update,
        on_delete=models.CASCADE,
        related_name="deliveries",
        db_index=False,
        verbose_name=_("update"),
    )
    subscriber = models.ForeignKey(
        Subscriber,
        on_delete=models.CASCADE,
        related_name="deliveries",
        verbose_name=_("subscriber"),
    )
    channel = models.CharField(max_length=5, choices=Channel.choices, verbose_name=_("channel"))
    state = models.CharField(
        max_length=10, choices=State.choices, default=State.PENDING, verbose_name=_("state")
    )
    attempts = models.PositiveSmallIntegerField(default=0, verbose_name=_("attempts"))
    error = models.TextField(blank=True, default="", verbose_name=_("error"))
    created_on = models.DateTimeField(default=timezone.now, verbose_name=_("created on"))
    sent_on = models.DateTimeField(null=True, blank=True, verbose_name=_("sent on"))
    # When a worker claimed it (state sending); the rows of one claim share the instant.
    claimed_on = models.DateTimeField(null=True, blank=True, verbose_name=_("claimed on"))
    # A pending row's retry: not sent before this (none: at once).
    not_before = models.DateTimeField(null=True, blank=True, verbose_name=_("not before"))

    class Meta:
        verbose_name = _("delivery")
        verbose_name_plural = _("deliveries")
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
            # The fair queue's look for the systems and channels with deliveries due.
            models.Index(
                fields=["update", "channel", "not_before"],
                condition=Q(state="pending"),
                name="delivery_pending_by_update",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.channel} of {self.update_id} to {self.subscriber_id}: {self.state}"


class NotificationShare(ChannelKey):
    """A system's notifications through one channel (e-mail or SMS): its place in the
    notifications' fair queue (core.fairqueue), so that one system's large fan-out is served
    in turn with every other system's. Its key is updates.notifications.queueing.share_key."""

    key = models.CharField(primary_key=True, max_length=80)

    def __str__(self) -> str:
        return self.key


class PendingSubscription(models.Model):
    """A sign-up from the public map waiting for its contact to prove it is theirs: the e-mail
    address by a single-use link (24 hours), the phone by a 6-digit code sent by SMS. Only
    digests of the link token and the code are stored."""

    id = IdField(primary_key=True, verbose_name=_("ID"))
    trail_system = models.ForeignKey(
        TrailSystem,
        on_delete=models.CASCADE,
        related_name="pending_subscriptions",
        verbose_name=_("trail system"),
    )
    email = models.EmailField(blank=True, default="", verbose_name=_("e-mail address"))
    phone = models.CharField(
        max_length=20, blank=True, default="", help_text=_("E.164"), verbose_name=_("phone number")
    )
    email_token_digest = models.CharField(
        max_length=64, blank=True, default="", db_index=True, verbose_name=_("email token digest")
    )
    email_confirmed_on = models.DateTimeField(
        null=True, blank=True, verbose_name=_("email confirmed on")
    )
    code_digest = models.CharField(
        max_length=64, blank=True, default="", verbose_name=_("code digest")
    )
    code_attempts = models.PositiveSmallIntegerField(default=0, verbose_name=_("code attempts"))
    phone_confirmed_on = models.DateTimeField(
        null=True, blank=True, verbose_name=_("phone confirmed on")
    )
    # The subscriber made by the first confirmed contact; the second one joins it.
    subscriber = models.ForeignKey(
        Subscriber,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("subscriber"),
    )
    created_on = models.DateTimeField(
        default=timezone.now, editable=False, verbose_name=_("created on")
    )
    expires_on = models.DateTimeField(verbose_name=_("expires on"))
    code_expires_on = models.DateTimeField(null=True, blank=True, verbose_name=_("code expires on"))

    class Meta:
        verbose_name = _("pending subscription")
        verbose_name_plural = _("pending subscriptions")
        ordering = ["created_on"]
        constraints = [
            models.CheckConstraint(
                condition=~Q(email="") | ~Q(phone=""), name="pending_has_email_or_phone"
            )
        ]

    def __str__(self) -> str:
        return f"{self.email or self.phone} for {self.trail_system_id} (pending)"

    @property
    def email_link_open(self) -> bool:
        """Whether the e-mailed link may still confirm: not used yet, and within its 24 hours."""
        return not self.email_confirmed_on and self.expires_on > timezone.now()
