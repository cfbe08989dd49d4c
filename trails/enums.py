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


class Language(models.TextChoices):
    EN = "en", "English"
    FR = "fr", "Français"


class TempMeasurement(models.TextChoices):
    FAHRENHEIT = "fahrenheit"
    CELSIUS = "celsius"


class Role(models.TextChoices):
    """Named roles; any other name in permissions is accepted and acts like a Trustee."""

    ADMINISTRATOR = "Administrator"
    TRUSTEE = "Trustee"
