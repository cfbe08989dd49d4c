"""Grooming passes: each uploaded track kept with when, by whom, and what it groomed."""

from django.db import models
from django.utils import timezone

from core.models import IdField
from trails.models import Trail, TrailSystem
from updates.models import Update


class GroomingPass(models.Model):
    """One groomer's run: the track as uploaded and the options it was measured with."""

    id = IdField(primary_key=True)
    trail_system = models.ForeignKey(
        TrailSystem, on_delete=models.CASCADE, related_name="grooming_passes"
    )
    groomed_at = models.DateTimeField()
    uid = models.CharField(max_length=128, help_text="The account that uploaded the track.")
    condition = models.CharField(max_length=40, help_text="A surface-conditions value.")
    tolerance_meters = models.FloatField()
    # A GeoJSON MultiLineString, one line per GPX segment or route, [lng, lat(, elevation)].
    track = models.JSONField()
    created_on = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["-groomed_at", "-created_on"]
        indexes = [models.Index(fields=["trail_system", "-groomed_at"])]
        verbose_name_plural = "grooming passes"

    def __str__(self) -> str:
        return f"{self.condition} on {self.trail_system_id} at {self.groomed_at:%Y-%m-%d %H:%M}"


class GroomedTrail(models.Model):
    """A trail a pass covered by more than the threshold, and the update it posted there
    (none when a later pass had already posted a newer one; gone when someone deleted it)."""

    grooming_pass = models.ForeignKey(
        GroomingPass, on_delete=models.CASCADE, related_name="groomed_trails"
    )
    trail = models.ForeignKey(Trail, on_delete=models.CASCADE, related_name="groomings")
    coverage = models.FloatField(help_text="Fraction of the trail's length, 0 to 1.")
    update = models.OneToOneField(
        Update, on_delete=models.SET_NULL, null=True, blank=True, related_name="grooming"
    )

    class Meta:
        ordering = ["-coverage"]
        constraints = [
            models.UniqueConstraint(
                fields=["grooming_pass", "trail"], name="one_coverage_per_trail_per_pass"
            )
        ]

    def __str__(self) -> str:
        return f"{self.trail_id}: {self.coverage:.0%}"
