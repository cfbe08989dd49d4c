"""Closures: a stretch of a trail closed for a reason, from a start to an optional end."""

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from closures.reasons import Reason
from core.models import Audited, IdField
from trails.models import Trail, TrailSystem

NOTE_MAX = 2000


class Closure(Audited):
    """The stretch is kept as distances along the trail's line in metres (closures.stretches),
    so it follows the line when the trail's geometry is edited; `to_meters` None: to the
    trail's end (a whole-trail closure is 0 to None). In effect from `starts_at` until
    `ends_at` (none: until reopened) or until `ended_on`, when it was reopened or its end
    was applied. `started_on` and `ended_on` are set by the write or the sweep that announced
    the start and the end (closures.services.settle_closures)."""

    id = IdField(primary_key=True, verbose_name=_("ID"))
    trail_system = models.ForeignKey(
        TrailSystem,
        on_delete=models.CASCADE,
        related_name="closures",
        verbose_name=_("trail system"),
    )
    trail = models.ForeignKey(
        Trail, on_delete=models.CASCADE, related_name="closures", verbose_name=_("trail")
    )
    from_meters = models.FloatField(default=0, verbose_name=_("from (metres along the trail)"))
    to_meters = models.FloatField(
        null=True,
        blank=True,
        help_text=_("Empty: to the trail's end."),
        verbose_name=_("to (metres along the trail)"),
    )
    activities = models.JSONField(
        default=list,
        blank=True,
        help_text=_("Empty: every activity of the trail."),
        verbose_name=_("activities"),
    )
    reason = models.CharField(max_length=20, choices=Reason.choices, verbose_name=_("reason"))
    note = models.TextField(blank=True, default="", max_length=NOTE_MAX, verbose_name=_("note"))
    starts_at = models.DateTimeField(default=timezone.now, verbose_name=_("starts at"))
    ends_at = models.DateTimeField(null=True, blank=True, verbose_name=_("ends at"))
    detour = models.TextField(blank=True, default="", max_length=NOTE_MAX, verbose_name=_("detour"))
    detour_geometry = models.JSONField(
        null=True, blank=True, verbose_name=_("detour line (GeoJSON LineString)")
    )
    started_on = models.DateTimeField(null=True, blank=True, verbose_name=_("started on"))
    ended_on = models.DateTimeField(null=True, blank=True, verbose_name=_("ended on"))

    class Meta:
        verbose_name = _("closure")
        verbose_name_plural = _("closures")
        ordering = ["starts_at", "created_on"]
        indexes = [
            models.Index(fields=["trail_system", "ended_on"]),
            models.Index(fields=["trail", "ended_on"]),
        ]

    def __str__(self) -> str:
        return f"{self.get_reason_display()}: {self.trail}"

    @property
    def whole_trail(self) -> bool:
        return self.from_meters == 0 and self.to_meters is None

    def is_active(self, now) -> bool:
        """In effect at `now`: started, not reopened, its end not reached."""
        return (
            self.ended_on is None
            and self.starts_at <= now
            and (self.ends_at is None or now < self.ends_at)
        )


class PublishedClosures(models.Model):
    """A system's closures file as its last compile wrote it (publishing.publisher), in the
    transaction that published its map file: never behind it."""

    trail_system = models.OneToOneField(
        TrailSystem,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="published_closures",
        verbose_name=_("trail system"),
    )
    body = models.BinaryField(verbose_name=_("body"))
    compiled_on = models.DateTimeField(verbose_name=_("compiled on"))

    class Meta:
        verbose_name = _("published closures")
        verbose_name_plural = _("published closures")

    def __str__(self) -> str:
        return f"closures of {self.trail_system_id}"
