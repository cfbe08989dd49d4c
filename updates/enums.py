"""The choices of updates: their types, notice severities and surface conditions."""

from django.db import models
from django.utils.translation import gettext_lazy as _


class UpdateType(models.TextChoices):
    NOTICE = "notice", _("Notice")
    SURFACE_CONDITIONS = "surfaceConditions", _("Surface conditions")
    SNOW_REPORT = "snowReport", _("Snow report")


class NoticeSeverity(models.TextChoices):
    INFO = "info", _("Information")
    WARNING = "warning", _("Warning")
    DANGER = "danger", _("Danger")


SURFACE_CONDITIONS = [
    "compacted", "very-compacted", "dry", "frozen-granular", "groomed", "skateGroomed",
    "classicGroomed", "hard-packed", "icy", "leaf-covered", "light-snow", "loose-granular",
    "maintenance-in-progress", "muddy", "no-snow", "packed-powder", "powder", "raked-leaves",
    "snow-machine-packed", "soft", "very-soft", "track-set", "variable-conditions", "wet",
    "wet-granular", "wet-packed", "wet-snow", "windblown",
]  # fmt: skip

# The conditions that say a trail was groomed: a pass posts one, a groomer may post one by hand,
# and either is the trail's last grooming.
GROOMING_CONDITIONS = ("groomed", "skateGroomed", "classicGroomed", "track-set")
