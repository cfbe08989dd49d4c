"""Grooming passes: each uploaded track kept with when, by whom, and what it groomed."""

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core.models import IdField
from trails.models import Trail, TrailSystem
from updates.models import Update


class GroomingPass(models.Model):
    """One groomer's run: the track as uploaded and the options it was measured with."""

    id = IdField(primary_key=True, verbose_name=_("ID"))
    trail_system = models.ForeignKey(
        TrailSystem,
        on_delete=models.CASCADE,
        related_name="grooming_passes",
        verbose_name=_("trail system"),
    )
    groomed_at = models.DateTimeField(verbose_name=_("groomed at"))
    uid = models.CharField(
        max_length=128, help_text=_("The account that uploaded the track."), verbose_name=_("UID")
    )
    condition = models.CharField(
        max_length=40, help_text=_("A surface-conditions value."), verbose_name=_("condition")
    )
    tolerance_meters = models.FloatField(verbose_name=_("tolerance (m)"))
    # A GeoJSON MultiLineString, one line per GPX segment or route, [lng, lat(, elevation)].
    track = models.JSONField(verbose_name=_("track"))
    # The grooming log's figures (grooming.driving), kept with the pass so that a season's log
    # never reads its positions: set when an upload is saved and when a session ends (null
    # while a session runs, and the times for a track recorded without them).
    started_at = models.DateTimeField(null=True, blank=True, verbose_name=_("started at"))
    active_seconds = models.FloatField(null=True, blank=True, verbose_name=_("active seconds"))
    pauses = models.PositiveIntegerField(default=0, verbose_name=_("pauses left out"))
    paused_seconds = models.FloatField(default=0.0, verbose_name=_("paused seconds"))
    driven_meters = models.FloatField(null=True, blank=True, verbose_name=_("driven (m)"))
    created_on = models.DateTimeField(
        default=timezone.now, editable=False, verbose_name=_("created on")
    )

    class Meta:
        verbose_name = _("grooming pass")
        verbose_name_plural = _("grooming passes")
        ordering = ["-groomed_at", "-created_on"]
        indexes = [models.Index(fields=["trail_system", "-groomed_at"])]

    def __str__(self) -> str:
        return f"{self.condition} on {self.trail_system_id} at {self.groomed_at:%Y-%m-%d %H:%M}"


class GroomedTrail(models.Model):
    """A trail a pass covered by more than the threshold, and the update it posted there
    (none when a later pass had already posted a newer one; gone when someone deleted it)."""

    grooming_pass = models.ForeignKey(
        GroomingPass,
        on_delete=models.CASCADE,
        related_name="groomed_trails",
        verbose_name=_("grooming pass"),
    )
    trail = models.ForeignKey(
        Trail, on_delete=models.CASCADE, related_name="groomings", verbose_name=_("trail")
    )
    coverage = models.FloatField(
        help_text=_("Fraction of the trail's length, 0 to 1."), verbose_name=_("coverage")
    )
    update = models.OneToOneField(
        Update,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="grooming",
        verbose_name=_("update"),
    )

    class Meta:
        verbose_name = _("groomed trail")
        verbose_name_plural = _("groomed trails")
        ordering = ["-coverage"]
        constraints = [
            models.UniqueConstraint(
                fields=["grooming_pass", "trail"], name="one_coverage_per_trail_per_pass"
            )
        ]

    def __str__(self) -> str:
        return f"{self.trail_id}: {self.coverage:.0%}"


class Tracker(models.Model):
    """A groomer's phone or a machine's GPS unit that posts positions (/track/...). Only the
    SHA-256 digest of its secret is stored; the prefix tells trackers apart."""

    id = IdField(primary_key=True, verbose_name=_("ID"))
    trail_system = models.ForeignKey(
        TrailSystem,
        on_delete=models.CASCADE,
        related_name="trackers",
        verbose_name=_("trail system"),
    )
    name = models.CharField(max_length=100, verbose_name=_("name"))
    condition = models.CharField(
        max_length=40,
        help_text=_("The surface condition posted on the trails it grooms."),
        verbose_name=_("condition"),
    )
    prefix = models.CharField(max_length=12, verbose_name=_("prefix"))
    digest = models.CharField(max_length=64, unique=True, verbose_name=_("digest"))
    created_on = models.DateTimeField(default=timezone.now, verbose_name=_("created on"))
    created_by = models.CharField(max_length=128, verbose_name=_("created by"))
    last_position_on = models.DateTimeField(null=True, blank=True, verbose_name=_("last position"))
    # Positions refused as implausible (from the future or the past, far away, inaccurate, too
    # frequent, too fast).
    dropped_positions = models.PositiveIntegerField(default=0, verbose_name=_("dropped positions"))
    revoked_on = models.DateTimeField(null=True, blank=True, verbose_name=_("revoked on"))
    # The web app's recorder of this account (its positions come by the signed-in page, not
    # by a secret); empty for a tracker app.
    recorder_uid = models.CharField(
        max_length=128, blank=True, default="", verbose_name=_("web recorder of")
    )

    class Meta:
        verbose_name = _("tracker")
        verbose_name_plural = _("trackers")
        ordering = ["created_on", "id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"


class GroomingSession(models.Model):
    """A tracker's run, built as its positions arrive: its grooming pass is created with the
    first position and grows until the session ends (15 minutes without a position, or ended
    by hand)."""

    id = IdField(primary_key=True, verbose_name=_("ID"))
    tracker = models.ForeignKey(
        Tracker, on_delete=models.CASCADE, related_name="sessions", verbose_name=_("tracker")
    )
    grooming_pass = models.OneToOneField(
        GroomingPass, on_delete=models.CASCADE, related_name="session", verbose_name=_("pass")
    )
    started_at = models.DateTimeField(verbose_name=_("started at"))
    # The recorded time of the latest position, and the latest coverage measurement.
    last_position_at = models.DateTimeField(verbose_name=_("last position at"))
    # When the latest position arrived: the session ends SESSION_IDLE after it.
    last_received_on = models.DateTimeField(verbose_name=_("last position received on"))
    last_lng = models.FloatField()
    last_lat = models.FloatField()
    measured_on = models.DateTimeField(null=True, blank=True, verbose_name=_("measured on"))
    measured_positions = models.PositiveIntegerField(default=0)
    ended_on = models.DateTimeField(null=True, blank=True, verbose_name=_("ended on"))

    class Meta:
        verbose_name = _("grooming session")
        verbose_name_plural = _("grooming sessions")
        ordering = ["-started_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["tracker"],
                condition=models.Q(ended_on__isnull=True),
                name="one_running_session_per_tracker",
            )
        ]

    def __str__(self) -> str:
        return f"{self.tracker_id} from {self.started_at:%Y-%m-%d %H:%M}"


class TrackerPosition(models.Model):
    """One accepted position of a session, in the order recorded."""

    session = models.ForeignKey(GroomingSession, on_delete=models.CASCADE, related_name="positions")
    recorded_at = models.DateTimeField()
    lng = models.FloatField()
    lat = models.FloatField()
    accuracy = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["recorded_at", "id"]
        indexes = [models.Index(fields=["session", "recorded_at"])]

    def __str__(self) -> str:
        return f"{self.lat:.6f}, {self.lng:.6f} at {self.recorded_at:%H:%M:%S}"


class GroomingLogApproval(models.Model):
    """An Administrator's approval of the grooming log of a period: the log as it stood then is
    kept (`document`), so a later upload into the period changes no approved figure. A reopened
    approval stays, with who reopened it, when and why: the period's approvals are its
    history."""

    id = IdField(primary_key=True, verbose_name=_("ID"))
    trail_system = models.ForeignKey(
        TrailSystem,
        on_delete=models.CASCADE,
        related_name="grooming_log_approvals",
        verbose_name=_("trail system"),
    )
    first_day = models.DateField(verbose_name=_("from"))
    last_day = models.DateField(verbose_name=_("to"))
    approved_by = models.CharField(max_length=128, verbose_name=_("approved by"))
    approved_on = models.DateTimeField(default=timezone.now, verbose_name=_("approved on"))
    # The log's sessions as approved (grooming.log's documents), and their pass ids.
    document = models.JSONField(verbose_name=_("approved log"))
    reopened_by = models.CharField(
        max_length=128, blank=True, default="", verbose_name=_("reopened by")
    )
    reopened_on = models.DateTimeField(null=True, blank=True, verbose_name=_("reopened on"))
    reopen_reason = models.TextField(blank=True, default="", verbose_name=_("reason"))

    class Meta:
        verbose_name = _("grooming log approval")
        verbose_name_plural = _("grooming log approvals")
        ordering = ["-approved_on"]
        indexes = [models.Index(fields=["trail_system", "first_day", "last_day"])]

    def __str__(self) -> str:
        return f"{self.trail_system_id} {self.first_day}..{self.last_day}"
