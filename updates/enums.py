"""The choices of updates: their types, notice severities and surface conditions."""

from django.db import models


class UpdateType(models.TextChoices):
    NOTICE = "notice"
    SURFACE_CONDITIONS = "surfaceConditions"
    SNOW_REPORT = "snowReport"


class NoticeSeverity(models.TextChoices):
    INFO = "info"
    WARNING = "warning"
    DANGER = "danger"


SURFACE_CONDITIONS = [
    "compacted", "very-compacted", "dry", "frozen-granular", "groomed", "skateGroomed",
    "classicGroomed", "hard-packed", "icy", "leaf-covered", "light-snow", "loose-granular",
    "maintenance-in-progress", "muddy", "no-snow", "packed-powder", "powder", "raked-leaves",
    "snow-machine-packed", "soft", "very-soft", "track-set", "variable-conditions", "wet",
    "wet-granular", "wet-packed", "wet-snow", "windblown",
]  # fmt: skip
