"""Every enumeration of spec section 2, values exactly as the interface spells them."""

from django.db import models


class TrailStatus(models.TextChoices):
    OPEN = "Open"
    CAUTION = "Caution"
    CLOSED = "Closed"
    NONE = "None", "None (derive from activities)"


class PointStatus(models.TextChoices):
    OPEN = "Open"
    CAUTION = "Caution"
    CLOSED = "Closed"


ActivityStatus = PointStatus


class Difficulty(models.TextChoices):
    CIRCLE = "circle"
    SQUARE = "square"
    DIAMOND = "diamond"
    DOUBLE_DIAMOND = "doubleDiamond"
    TERRAIN_PARK = "terrainPark"
    NOT_RATED = "notRated"


class TrailType(models.TextChoices):
    STANDARD = "Standard"
    LIFT = "Lift"


class LineStyle(models.TextChoices):
    SOLID = "Solid"
    DASHED = "Dashed"


MARKER_CLASSES = [
    "bar", "cabin", "dining", "dog-park", "fallen-tree", "first-aid", "fishing", "generic",
    "hazard", "ice", "ice-rink", "lodge", "lodging", "mud", "parking", "parking-busy",
    "parking-very-busy", "playground", "restaurant", "restroom", "scenic", "star", "trailhead",
    "wait-time", "water-access", "web-cam", "yurt",
]  # fmt: skip

MarkerClass = models.TextChoices("MarkerClass", [(v, v) for v in MARKER_CLASSES])


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


class Language(models.TextChoices):
    EN = "en", "English"
    FR = "fr", "Français"


class TempMeasurement(models.TextChoices):
    FAHRENHEIT = "fahrenheit"
    CELSIUS = "celsius"


class KeyScope(models.TextChoices):
    READ = "read"
    WRITE = "write"


class Role(models.TextChoices):
    """Named roles; any other name in permissions is accepted and acts like a Trustee."""

    ADMINISTRATOR = "Administrator"
    TRUSTEE = "Trustee"


def enum_values(choices: type[models.TextChoices]) -> list[str]:
    return [str(value) for value in choices.values]


# What GET / returns under `enums`: names as the spec's table, values exactly as the spec.
PUBLIC_ENUMS: dict[str, list[str]] = {
    "trailStatus": enum_values(TrailStatus),
    "pointStatus": enum_values(PointStatus),
    "difficulty": enum_values(Difficulty),
    "trailType": enum_values(TrailType),
    "lineStyle": enum_values(LineStyle),
    "markerClass": list(MARKER_CLASSES),
    "updateType": enum_values(UpdateType),
    "noticeSeverity": enum_values(NoticeSeverity),
    "surfaceConditions": list(SURFACE_CONDITIONS),
    "language": enum_values(Language),
    "tempMeasurement": enum_values(TempMeasurement),
    "keyScopes": enum_values(KeyScope),
}
