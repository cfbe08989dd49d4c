"""Trail systems, their members and roles, trails with their activities, and points."""

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from core.actors import Via
from core.limits import UNCONFIRMED_AFTER_HOURS_MAX
from core.models import Audited, IdField, Trashable, TrashManager
from trails import enums
from trails import geometry as geometry_module
from trails.activities import CATALOG


class TrailSystem(models.Model):
    id = IdField(primary_key=True, verbose_name=_("ID"))
    name = models.CharField(max_length=2000, verbose_name=_("name"))
    description = models.TextField(
        blank=True, default="", max_length=2000, verbose_name=_("description")
    )
    phone_number = models.CharField(
        max_length=2000, blank=True, default="", verbose_name=_("phone number")
    )
    website = models.CharField(max_length=2000, blank=True, default="", verbose_name=_("website"))
    language = models.CharField(
        max_length=2,
        choices=enums.Language.choices,
        default=enums.Language.EN,
        verbose_name=_("language"),
    )
    depth_measurement = models.CharField(
        max_length=2000, default="inches", verbose_name=_("depth measurement")
    )
    length_measurement = models.CharField(
        max_length=2000, default="miles", verbose_name=_("length measurement")
    )
    temp_measurement = models.CharField(
        max_length=10,
        choices=enums.TempMeasurement.choices,
        default="fahrenheit",
        verbose_name=_("temp measurement"),
    )
    inactive = models.BooleanField(
        default=False, help_text=_("Hidden from the public map."), verbose_name=_("inactive")
    )
    blocked = models.BooleanField(
        default=False, help_text=_("Withheld from the legacy list."), verbose_name=_("blocked")
    )
    hide_name = models.BooleanField(default=False, verbose_name=_("hide the name"))
    promote_trail_hub = models.BooleanField(default=False, verbose_name=_("promote trail hub"))
    lat = models.FloatField(null=True, blank=True, verbose_name=_("latitude"))
    lng = models.FloatField(null=True, blank=True, verbose_name=_("longitude"))
    # True while lat and lng are the centre of the trails' extent, written by each compile
    # (trails.services.derive_location) because no manager has set a location.
    location_derived = models.BooleanField(
        default=False,
        help_text=_("The location is the centre of the trails, kept up to date until you set one."),
        verbose_name=_("location derived from the trails"),
    )
    groomers_live = models.BooleanField(
        default=False,
        help_text=_(
            "Machines grooming now are shown moving on the public map and listed in the "
            "groomers feed. Off: nothing about a machine is public."
        ),
        verbose_name=_("show groomers live"),
    )
    # An IANA name; empty: the zone of the system's location (trails.timezones).
    time_zone = models.CharField(
        max_length=64,
        blank=True,
        default="",
        help_text=_(
            "The times of scheduled changes are in this zone. Leave it empty to use the zone "
            "of the system's location."
        ),
        verbose_name=_("time zone"),
    )
    # Off when null: a trail whose status nobody confirmed within this many hours shows as
    # unconfirmed on the public map, the embeds and the board (trails.confirmations).
    unconfirmed_after_hours = models.PositiveIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(UNCONFIRMED_AFTER_HOURS_MAX)],
        help_text=_(
            "A trail whose status nobody has confirmed for this many hours shows as "
            "unconfirmed on the public map and the embeds. Empty: never."
        ),
        verbose_name=_("unconfirmed after (hours)"),
    )
    subscription = models.CharField(
        max_length=40,
        blank=True,
        default="free",
        help_text=_("Plan key (tier)."),
        verbose_name=_("subscription"),
    )
    # Sign-up by text message from the public map (updates.confirmations): the countries
    # whose numbers may sign up (ISO 3166-1 alpha-2; empty: the country of the system's
    # location, trails.countries) and the confirmation SMS sent per day at most.
    sms_countries = models.JSONField(
        default=list,
        blank=True,
        help_text=_(
            "Countries whose mobile numbers may sign up by text message, as ISO codes "
            "(CA, US, FR). Empty: the country of the system's location."
        ),
        verbose_name=_("SMS countries"),
    )
    sms_confirmations_per_day = models.PositiveIntegerField(
        default=100,
        help_text=_(
            "Confirmation text messages sent per day at most to people signing up on the "
            "public map; past it, sign-up by text pauses until the next day (UTC). 0: never."
        ),
        verbose_name=_("SMS confirmations per day"),
    )
    reports_per_day = models.PositiveIntegerField(
        default=200,
        help_text=_(
            "Problem reports riders may send per day (UTC) from the public map; past it, "
            "the form is paused until the next day and shows the system's contact. 0: off."
        ),
        verbose_name=_("rider reports per day"),
    )
    # Additive (issue 45): the terms of reuse of the system's public data, stated by the
    # discovery file of its feeds (/feeds/<id>/index.json).
    license_url = models.CharField(
        max_length=2000,
        blank=True,
        default="",
        help_text=_(
            "The licence under which others may reuse this system's public data (its map "
            "file and feeds). Blank: the service's licence."
        ),
        verbose_name=_("licence URL"),
    )
    attribution_name = models.CharField(
        max_length=2000,
        blank=True,
        default="",
        help_text=_(
            "Whom readers of the feeds must credit, such as the source of the map data "
            '("OpenStreetMap contributors").'
        ),
        verbose_name=_("attribution"),
    )
    attribution_url = models.CharField(
        max_length=2000,
        blank=True,
        default="",
        help_text=_("Where the attribution points, such as the source's copyright page."),
        verbose_name=_("attribution URL"),
    )
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="owned_trail_systems",
        null=True,
        blank=True,
        verbose_name=_("owner"),
    )
    created_on = models.DateTimeField(
        default=timezone.now, editable=False, verbose_name=_("created on")
    )
    updated_on = models.DateTimeField(default=timezone.now, verbose_name=_("updated on"))
    updated_by = models.CharField(
        max_length=128, blank=True, default="", verbose_name=_("updated by")
    )

    # Written by the compile (publishing); read-only elsewhere.
    total_trails = models.PositiveIntegerField(default=0, verbose_name=_("total trails"))
    open_trails = models.PositiveIntegerField(default=0, verbose_name=_("open trails"))
    caution_trails = models.PositiveIntegerField(default=0, verbose_name=_("caution trails"))
    closed_trails = models.PositiveIntegerField(default=0, verbose_name=_("closed trails"))
    total_distance = models.FloatField(default=0, verbose_name=_("total distance"))
    open_distance = models.FloatField(default=0, verbose_name=_("open distance"))
    caution_distance = models.FloatField(default=0, verbose_name=_("caution distance"))
    activity_totals = models.JSONField(default=list, blank=True, verbose_name=_("activity totals"))
    published_updates = models.JSONField(
        default=dict,
        blank=True,
        help_text=_("Active system-level updates keyed by type."),
        verbose_name=_("published updates"),
    )
    geo_json_path = models.CharField(
        max_length=500, blank=True, default="", verbose_name=_("published file")
    )
    compiled_on = models.DateTimeField(null=True, blank=True, verbose_name=_("compiled on"))

    # Collected hourly for paid tiers (publishing.weather).
    weather = models.JSONField(null=True, blank=True, verbose_name=_("weather"))
    weather_updated_on = models.DateTimeField(
        null=True, blank=True, verbose_name=_("weather updated on")
    )

    # Legacy-only presentation fields.
    related_trail_systems = models.JSONField(
        default=list, blank=True, verbose_name=_("related trail systems")
    )
    icon_path = models.CharField(
        max_length=500, blank=True, default="", verbose_name=_("icon path")
    )
    hidden_activities = models.JSONField(null=True, blank=True, verbose_name=_("hidden activities"))

    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        through="Membership",
        related_name="trail_systems",
        verbose_name=_("members"),
    )

    class Meta:
        verbose_name = _("trail system")
        verbose_name_plural = _("trail systems")
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @property
    def feeds_license_url(self) -> str:
        """The licence every feed of the system states: its own, else the service's."""
        return self.license_url or settings.FEEDS_LICENSE_URL


class Membership(models.Model):
    """A user's role on one system: the system's `users` list and `permissions` map in one."""

    trail_system = models.ForeignKey(
        TrailSystem,
        on_delete=models.CASCADE,
        related_name="memberships",
        verbose_name=_("trail system"),
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="memberships",
        verbose_name=_("user"),
    )
    role = models.CharField(max_length=60, default=enums.Role.TRUSTEE, verbose_name=_("role"))

    class Meta:
        verbose_name = _("member")
        verbose_name_plural = _("members")
        constraints = [
            models.UniqueConstraint(fields=["trail_system", "user"], name="one_role_per_system")
        ]

    def __str__(self) -> str:
        return _("%(user)s is %(role)s of %(system)s") % {
            "user": self.user,
            "role": enums.role_label(self.role),
            "system": self.trail_system,
        }


class Trail(Audited, Trashable):
    id = IdField(primary_key=True, verbose_name=_("ID"))
    trail_system = models.ForeignKey(
        TrailSystem, on_delete=models.CASCADE, related_name="trails", verbose_name=_("trail system")
    )
    name = models.CharField(max_length=200, verbose_name=_("name"))
    description = models.TextField(
        blank=True, default="", max_length=5000, verbose_name=_("description")
    )
    status = models.CharField(
        max_length=10,
        choices=enums.TrailStatus.choices,
        default=enums.TrailStatus.NONE,
        verbose_name=_("status"),
    )
    difficulty = models.CharField(
        max_length=20,
        choices=enums.Difficulty.choices,
        default=enums.Difficulty.NOT_RATED,
        verbose_name=_("difficulty"),
    )
    type = models.CharField(
        max_length=10,
        choices=enums.TrailType.choices,
        default=enums.TrailType.STANDARD,
        verbose_name=_("type"),
    )
    line_style = models.CharField(
        max_length=10,
        choices=enums.LineStyle.choices,
        default=enums.LineStyle.SOLID,
        verbose_name=_("line style"),
    )
    hidden = models.BooleanField(default=False, verbose_name=_("hidden"))
    one_way = models.BooleanField(default=False, verbose_name=_("one way"))
    one_way_reversed = models.BooleanField(default=False, verbose_name=_("one way reversed"))
    order = models.IntegerField(default=0, verbose_name=_("order"))
    categories = models.JSONField(default=list, blank=True, verbose_name=_("categories"))
    # A GeoJSON LineString or MultiLineString geometry, [lng, lat(, elevation)] positions.
    geometry = models.JSONField(verbose_name=_("geometry"))
    # Derived from the geometry by trails.geometry.measure(); kept in step on every save.
    distance = models.FloatField(
        default=0, help_text=_("Kilometres, geodesic on WGS84."), verbose_name=_("distance")
    )
    lat = models.FloatField(default=0, verbose_name=_("latitude"))
    lng = models.FloatField(default=0, verbose_name=_("longitude"))
    # The box around every position, kept with the geometry: a system without a location of
    # its own is placed at the centre of its trails' boxes without reading any geometry.
    west = models.FloatField(null=True, blank=True, verbose_name=_("west"))
    south = models.FloatField(null=True, blank=True, verbose_name=_("south"))
    east = models.FloatField(null=True, blank=True, verbose_name=_("east"))
    north = models.FloatField(null=True, blank=True, verbose_name=_("north"))
    # None until computed; then 50 evenly spaced metre values along the line.
    elevations = models.JSONField(null=True, blank=True, verbose_name=_("elevations"))
    # When a person last set or confirmed the status, and who (an account uid).
    status_confirmed_on = models.DateTimeField(
        null=True, blank=True, verbose_name=_("status confirmed on")
    )
    status_confirmed_by = models.CharField(
        max_length=128, blank=True, default="", verbose_name=_("status confirmed by")
    )

    class Meta:
        verbose_name = _("trail")
        verbose_name_plural = _("trails")
        ordering = ["order", "created_on"]
        indexes = [models.Index(fields=["trail_system", "order"])]

    def __str__(self) -> str:
        return self.name

    def apply_geometry(self, geometry: dict) -> None:
        """Set the geometry (validated; GeometryError otherwise) and what derives from it."""
        self.geometry = geometry_module.validate(geometry)
        self.distance = geometry_module.length_km(self.geometry)
        self.lat, self.lng = geometry_module.first_vertex(self.geometry)
        self.west, self.south, self.east, self.north = geometry_module.extent(self.geometry)


class TrailActivity(models.Model):
    """One activity on a trail; its label and icon come from trails.activities.CATALOG."""

    trail = models.ForeignKey(
        Trail, on_delete=models.CASCADE, related_name="activities", verbose_name=_("trail")
    )
    value = models.CharField(max_length=40, verbose_name=_("value"))
    status = models.CharField(
        max_length=10,
        choices=enums.ActivityStatus.choices,
        default=enums.ActivityStatus.OPEN,
        verbose_name=_("status"),
    )
    difficulty = models.CharField(
        max_length=20,
        choices=enums.Difficulty.choices,
        blank=True,
        default="",
        verbose_name=_("difficulty"),
    )
    position = models.PositiveSmallIntegerField(default=0, verbose_name=_("position"))

    class Meta:
        verbose_name = _("activity")
        verbose_name_plural = _("activities")
        ordering = ["position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["trail", "value"], name="one_activity_per_trail")
        ]

    def __str__(self) -> str:
        known = CATALOG.get(self.value)
        label = known.label((get_language() or "en")[:2]) if known else self.value
        return f"{label} ({self.get_status_display()})"


class Point(Audited, Trashable):
    id = IdField(primary_key=True, verbose_name=_("ID"))
    trail_system = models.ForeignKey(
        TrailSystem, on_delete=models.CASCADE, related_name="points", verbose_name=_("trail system")
    )
    name = models.CharField(max_length=200, verbose_name=_("name"))
    description = models.TextField(blank=True, default="", verbose_name=_("description"))
    marker_class = models.CharField(
        max_length=30, choices=enums.MarkerClass.choices, verbose_name=_("marker")
    )
    status = models.CharField(
        max_length=10,
        choices=enums.PointStatus.choices,
        default=enums.PointStatus.OPEN,
        verbose_name=_("status"),
    )
    hidden = models.BooleanField(default=False, verbose_name=_("hidden"))
    wait_time = models.PositiveIntegerField(
        null=True, blank=True, help_text=_("Minutes."), verbose_name=_("wait time")
    )
    web_cam_url = models.CharField(
        max_length=2000, blank=True, default="", verbose_name=_("web-cam address")
    )
    # Boolean or an object; edited only in the web app.
    dining_options = models.JSONField(null=True, blank=True, verbose_name=_("dining options"))
    lat = models.FloatField(verbose_name=_("latitude"))
    lng = models.FloatField(verbose_name=_("longitude"))

    class Meta:
        verbose_name = _("point")
        verbose_name_plural = _("points")
        ordering = ["-created_on"]
        indexes = [models.Index(fields=["trail_system", "-created_on"])]

    def __str__(self) -> str:
        return self.name


class TrashedTrail(Trail):
    """The trash as the web app shows it: only trashed trails, restorable there."""

    objects = TrashManager()

    class Meta:
        verbose_name = _("trashed trail")
        verbose_name_plural = _("trashed trails")
        proxy = True


class TrashedPoint(Point):
    """The trash as the web app shows it: only trashed points, restorable there."""

    objects = TrashManager()

    class Meta:
        verbose_name = _("trashed point")
        verbose_name_plural = _("trashed points")
        proxy = True


class StatusChange(models.Model):
    """One recorded change of a trail's status, an activity's status or difficulty, a point's
    status or wait time, or a trash/restore; written by trails.history in the change's own
    transaction. `old_value`/`new_value` keep the JSON type of the value (text, number, bool)."""

    trail_system = models.ForeignKey(
        TrailSystem,
        on_delete=models.CASCADE,
        related_name="status_changes",
        verbose_name=_("trail system"),
    )
    trail = models.ForeignKey(
        Trail,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="status_changes",
        verbose_name=_("trail"),
    )
    point = models.ForeignKey(
        Point,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="status_changes",
        verbose_name=_("point"),
    )
    at = models.DateTimeField(default=timezone.now, verbose_name=_("at"))
    uid = models.CharField(max_length=128, blank=True, default="", verbose_name=_("UID"))
    via = models.CharField(max_length=20, choices=Via.choices, verbose_name=_("via"))
    key_id = models.CharField(max_length=64, blank=True, default="", verbose_name=_("key id"))
    field = models.CharField(max_length=40, verbose_name=_("field"))
    activity = models.CharField(
        max_length=40, blank=True, default="", verbose_name=_("activity")
    )  # "" for the row itself
    old_value = models.JSONField(null=True, blank=True, verbose_name=_("old value"))
    new_value = models.JSONField(null=True, blank=True, verbose_name=_("new value"))

    class Meta:
        verbose_name = _("status change")
        verbose_name_plural = _("status changes")
        ordering = ["-at", "-id"]
        indexes = [
            models.Index(fields=["trail", "-at", "-id"]),
            models.Index(fields=["point", "-at", "-id"]),
            models.Index(fields=["trail_system", "-at", "-id"], name="status_change_system_at"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(trail__isnull=True) ^ models.Q(point__isnull=True),
                name="status_change_of_a_trail_or_a_point",
            )
        ]

    def __str__(self) -> str:
        return f"{self.field}: {self.old_value} -> {self.new_value}"
