"""Problem reports riders send from the public map: what they saw, where, an optional photo
and an optional address to hear back. Nothing of a report is public; the managers triage it.

Reports of the same category within GROUP_METRES and GROUP_HOURS of an open one join it: the
first is the group (`count` reports), the others point to it with `duplicate_of` and keep
their own photo and address, so every reporter who left one hears back."""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core.models import IdField
from trails.models import Trail, TrailSystem


class Category(models.TextChoices):
    FALLEN_TREE = "fallenTree", _("Fallen tree")
    WASHOUT = "washout", _("Washout")
    ICE = "ice", _("Ice")
    WATER = "water", _("Water")
    SIGNAGE = "signage", _("Signage")
    OBSTRUCTION = "obstruction", _("Obstruction")
    OTHER = "other", _("Other")


class State(models.TextChoices):
    NEW = "new", _("New")
    RESOLVED = "resolved", _("Resolved")
    DISMISSED = "dismissed", _("Dismissed")


class Report(models.Model):
    id = IdField(primary_key=True, verbose_name=_("ID"))
    trail_system = models.ForeignKey(
        TrailSystem,
        on_delete=models.CASCADE,
        related_name="reports",
        verbose_name=_("trail system"),
    )
    duplicate_of = models.ForeignKey(
        "self",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="duplicates",
        verbose_name=_("same problem as"),
    )
    category = models.CharField(max_length=20, choices=Category.choices, verbose_name=_("category"))
    description = models.TextField(blank=True, default="", verbose_name=_("description"))
    lat = models.FloatField(verbose_name=_("latitude"))
    lng = models.FloatField(verbose_name=_("longitude"))
    # The nearest live trail when it was filed, and how far it was (geodesic, km).
    trail = models.ForeignKey(
        Trail,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="reports",
        verbose_name=_("nearest trail"),
    )
    trail_distance_km = models.FloatField(
        null=True, blank=True, verbose_name=_("distance to the trail (km)")
    )
    # The re-encoded photo's name in the private report-photo storage ("" without one).
    photo = models.CharField(max_length=300, blank=True, default="", verbose_name=_("photo"))
    # Used only to answer this reporter once, when the report is resolved.
    email = models.EmailField(max_length=254, blank=True, default="", verbose_name=_("e-mail"))
    state = models.CharField(
        max_length=10, choices=State.choices, default=State.NEW, verbose_name=_("state")
    )
    note = models.TextField(blank=True, default="", verbose_name=_("note"))
    # Reports in the group (itself included); 1 on a report that joined another.
    count = models.PositiveIntegerField(default=1, verbose_name=_("reports"))
    created_on = models.DateTimeField(default=timezone.now, verbose_name=_("received on"))
    last_reported_on = models.DateTimeField(default=timezone.now, verbose_name=_("last report"))
    updated_on = models.DateTimeField(default=timezone.now, verbose_name=_("updated on"))
    updated_by = models.CharField(
        max_length=128, blank=True, default="", verbose_name=_("updated by")
    )
    # Set when the resolution e-mail to this report's address was handed to the mail server.
    answered_on = models.DateTimeField(null=True, blank=True, verbose_name=_("answered on"))
    # The e-mail of this new report to the Administrators who asked for one is still to be
    # sent: set with the report, cleared by the task that sends it (reports.alerts); beat's
    # sweep queues what a broker outage left.
    alert_pending = models.BooleanField(default=False, verbose_name=_("alert pending"))

    class Meta:
        verbose_name = _("rider report")
        verbose_name_plural = _("rider reports")
        ordering = ["-created_on", "-id"]
        indexes = [
            models.Index(fields=["trail_system", "-created_on"], name="report_system_created"),
            models.Index(fields=["created_on"], name="report_created"),
            models.Index(
                fields=["created_on"],
                condition=models.Q(alert_pending=True),
                name="report_alert_pending",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_category_display()} ({self.get_state_display()})"


class ReportAlert(models.Model):
    """An Administrator of the system who asked for an e-mail of each new report. Sent only
    while the account is still an Administrator of it (reports.alerts)."""

    trail_system = models.ForeignKey(
        TrailSystem,
        on_delete=models.CASCADE,
        related_name="report_alerts",
        verbose_name=_("trail system"),
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="report_alerts",
        verbose_name=_("account"),
    )
    created_on = models.DateTimeField(default=timezone.now, verbose_name=_("created on"))

    class Meta:
        verbose_name = _("report e-mail")
        verbose_name_plural = _("report e-mails")
        constraints = [
            models.UniqueConstraint(fields=["trail_system", "user"], name="one_alert_per_account")
        ]

    def __str__(self) -> str:
        return f"{self.user_id} @ {self.trail_system_id}"
