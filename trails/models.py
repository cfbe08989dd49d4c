"""Trail systems, their members and roles, trails with their activities, and points."""

from django.conf import settings
from django.db import models
from django.utils import timezone

from core.actors import Via
from core.models import Audited, IdField, Trashable, TrashManager
from trails import enums
from trails import geometry as geometry_module


class TrailSystem(models.Model):
    id = IdField(primary_key=True)
    name = models.CharField(max_length=2000)
    description = models.TextField(blank=True, default="", max_length=2000)
    phone_number = models.CharField(max_length=2000, blank=True, default="")
    website = models.CharField(max_length=2000, blank=True, default="")
    language = models.CharField(
        max_length=2, choices=enums.Language.choices, default=enums.Language.EN
    )
    depth_measurement = models.CharField(max_length=2000, default="inches")
    length_measurement = models.CharField(max_length=2000, default="miles")
    temp_measurement = models.CharField(
        max_length=10, choices=enums.TempMeasurement.choices, default="fahrenheit"
    )
    inactive = models.BooleanField(default=False, help_text="Hidden from the public map.")
    blocked = models.BooleanField(default=False, help_text="Withheld from the legacy list.")
    hide_name = models.BooleanField(default=False)
    promote_trail_hub = models.BooleanField(default=False)
    lat = models.FloatField(null=True, blank=True)
    lng = models.FloatField(null=True, blank=True)
    subscription = models.CharField(
        max_length=40, blank=True, default="free", help_text="Plan key (tier)."
    )
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="owned_trail_systems",
        null=True,
        blank=True,
    )
    created_on = models.DateTimeField(default=timezone.now, editable=False)
    updated_on = models.DateTimeField(default=timezone.now)
    updated_by = models.CharField(max_length=128, blank=True, default="")

    # Written by the compile (publishing); read-only elsewhere.
    total_trails = models.PositiveIntegerField(default=0)
    open_trails = models.PositiveIntegerField(default=0)
    caution_trails = models.PositiveIntegerField(default=0)
    closed_trails = models.PositiveIntegerField(default=0)
    total_distance = models.FloatField(default=0)
    open_distance = models.FloatField(default=0)
    caution_distance = models.FloatField(default=0)
    activity_totals = models.JSONField(default=list, blank=True)
    published_updates = models.JSONField(
        default=dict, blank=True, help_text="Active system-level updates keyed by type."
    )
    geo_json_path = models.CharField(max_length=500, blank=True, default="")
    compiled_on = models.DateTimeField(null=True, blank=True)

    # Collected hourly for paid tiers (publishing.weather).
    weather = models.JSONField(null=True, blank=True)
    weather_updated_on = models.DateTimeField(null=True, blank=True)

    # Legacy-only presentation fields.
    related_trail_systems = models.JSONField(default=list, blank=True)
    icon_path = models.CharField(max_length=500, blank=True, default="")
    hidden_activities = models.JSONField(null=True, blank=True)

    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL, through="Membership", related_name="trail_systems"
    )

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    """A user's role on one system: the system's `users` list and `permissions` map in one."""

    trail_system = models.ForeignKey(
        TrailSystem, on_delete=models.CASCADE, related_name="memberships"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(max_length=60, default=enums.Role.TRUSTEE)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["trail_system", "user"], name="one_role_per_system")
        ]

    def __str__(self) -> str:
        return f"{self.user} is {self.role} of {self.trail_system}"


class Trail(Audited, Trashable):
    id = IdField(primary_key=True)
    trail_system = models.ForeignKey(TrailSystem, on_delete=models.CASCADE, related_name="trails")
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True, default="", max_length=5000)
    status = models.CharField(
        max_length=10, choices=enums.TrailStatus.choices, default=enums.TrailStatus.NONE
    )
    difficulty = models.CharField(
        max_length=20, choices=enums.Difficulty.choices, default=enums.Difficulty.NOT_RATED
    )
    type = models.CharField(
        max_length=10, choices=enums.TrailType.choices, default=enums.TrailType.STANDARD
    )
    line_style = models.CharField(
        max_length=10, choices=enums.LineStyle.choices, default=enums.LineStyle.SOLID
    )
    hidden = models.BooleanField(default=False)
    one_way = models.BooleanField(default=False)
    one_way_reversed = models.BooleanField(default=False)
    order = models.IntegerField(default=0)
    categories = models.JSONField(default=list, blank=True)
    # A GeoJSON LineString or MultiLineString geometry, [lng, lat(, elevation)] positions.
    geometry = models.JSONField()
    # Derived from the geometry by trails.geometry.measure(); kept in step on every save.
    distance = models.FloatField(default=0, help_text="Kilometres, geodesic on WGS84.")
    lat = models.FloatField(default=0)
    lng = models.FloatField(default=0)
    # None until computed; then 50 evenly spaced metre values along the line.
    elevations = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["order", "created_on"]
        indexes = [models.Index(fields=["trail_system", "order"])]

    def __str__(self) -> str:
        return self.name

    def apply_geometry(self, geometry: dict) -> None:
        """Set the geometry (validated; GeometryError otherwise) and what derives from it."""
        self.geometry = geometry_module.validate(geometry)
        self.distance = geometry_module.length_km(self.geometry)
        self.lat, self.lng = geometry_module.first_vertex(self.geometry)


class TrailActivity(models.Model):
    """One activity on a trail; its label and icon come from trails.activities.CATALOG."""

    trail = models.ForeignKey(Trail, on_delete=models.CASCADE, related_name="activities")
    value = models.CharField(max_length=40)
    status = models.CharField(
        max_length=10, choices=enums.ActivityStatus.choices, default=enums.ActivityStatus.OPEN
    )
    difficulty = models.CharField(
        max_length=20, choices=enums.Difficulty.choices, blank=True, default=""
    )
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["position", "id"]
        verbose_name_plural = "activities"
        constraints = [
            models.UniqueConstraint(fields=["trail", "value"], name="one_activity_per_trail")
        ]

    def __str__(self) -> str:
        return f"{self.value} ({self.status})"


class Point(Audited, Trashable):
    id = IdField(primary_key=True)
    trail_system = models.ForeignKey(TrailSystem, on_delete=models.CASCADE, related_name="points")
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True, default="")
    marker_class = models.CharField(max_length=30, choices=enums.MarkerClass.choices)
    status = models.CharField(
        max_length=10, choices=enums.PointStatus.choices, default=enums.PointStatus.OPEN
    )
    hidden = models.BooleanField(default=False)
    wait_time = models.PositiveIntegerField(null=True, blank=True, help_text="Minutes.")
    web_cam_url = models.CharField(max_length=2000, blank=True, default="")
    # Boolean or an object; edited only in the web app.
    dining_options = models.JSONField(null=True, blank=True)
    lat = models.FloatField()
    lng = models.FloatField()

    class Meta:
        ordering = ["-created_on"]
        indexes = [models.Index(fields=["trail_system", "-created_on"])]

    def __str__(self) -> str:
        return self.name


class TrashedTrail(Trail):
    """The trash as the web app shows it: only trashed trails, restorable there."""

    objects = TrashManager()

    class Meta:
        proxy = True
        verbose_name = "trashed trail"


class TrashedPoint(Point):
    """The trash as the web app shows it: only trashed points, restorable there."""

    objects = TrashManager()

    class Meta:
        proxy = True
        verbose_name = "trashed point"


class StatusChange(models.Model):
    """One recorded change of a trail's status, an activity's status or difficulty, a point's
    status or wait time, or a trash/restore; written by trails.history in the change's own
    transaction. `old_value`/`new_value` keep the JSON type of the value (text, number, bool)."""

    trail_system = models.ForeignKey(
        TrailSystem, on_delete=models.CASCADE, related_name="status_changes"
    )
    trail = models.ForeignKey(
        Trail, on_delete=models.CASCADE, null=True, blank=True, related_name="status_changes"
    )
    point = models.ForeignKey(
        Point, on_delete=models.CASCADE, null=True, blank=True, related_name="status_changes"
    )
    at = models.DateTimeField(default=timezone.now)
    uid = models.CharField(max_length=128, blank=True, default="")
    via = models.CharField(max_length=20, choices=Via.choices)
    key_id = models.CharField(max_length=64, blank=True, default="")
    field = models.CharField(max_length=40)
    activity = models.CharField(max_length=40, blank=True, default="")  # "" for the row itself
    old_value = models.JSONField(null=True, blank=True)
    new_value = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [
            models.Index(fields=["trail", "-at", "-id"]),
            models.Index(fields=["point", "-at", "-id"]),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(trail__isnull=True) ^ models.Q(point__isnull=True),
                name="status_change_of_a_trail_or_a_point",
            )
        ]

    def __str__(self) -> str:
        return f"{self.field}: {self.old_value} -> {self.new_value}"
