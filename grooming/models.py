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
