"""Every enumeration of spec section 2, values exactly as the interface spells them."""

from django.db import models
from django.utils.translation import gettext_lazy as _


class TrailStatus(models.TextChoices):
    OPEN = "Open", _("Open")
    CAUTION = "Caution", _("Caution")
    CLOSED = "Closed", _("Closed")
    NONE = "None", _("Set by its activities")


class PointStatus(models.TextChoices):
    OPEN = "Open", _("Open")
    CAUTION = "Caution", _("Caution")
    CLOSED = "Closed", _("Closed")


ActivityStatus = PointStatus


class Difficulty(models.TextChoices):
    CIRCLE = "circle", _("Circle")
    SQUARE = "square", _("Square")
    DIAMOND = "diamond", _("Diamond")
    DOUBLE_DIAMOND = "doubleDiamond", _("Double diamond")
    TERRAIN_PARK = "terrainPark", _("Terrain park")
    NOT_RATED = "notRated", _("Not rated")


class TrailType(models.TextChoices):
    STANDARD = "Standard", _("Standard")
    LIFT = "Lift", _("Lift")


class LineStyle(models.TextChoices):
    SOLID = "Solid", _("Solid")
    DASHED = "Dashed", _("Dashed")


MARKER_CLASSES = [
    "bar", "cabin", "dining", "dog-park", "fallen-tree", "first-aid", "fishing", "generic",
    "hazard", "ice", "ice-rink", "lodge", "lodging", "mud", "parking", "parking-busy",
    "parking-very-busy", "playground", "restaurant", "restroom", "scenic", "star", "trailhead",
    "wait-time", "water-access", "web-cam", "yurt",
]  # fmt: skip

MARKER_LABELS = {
    "bar": _("Bar"),
    "cabin": _("Cabin"),
    "dining": _("Dining"),
    "dog-park": _("Dog park"),
    "fallen-tree": _("Fallen tree"),
    "first-aid": _("First aid"),
    "fishing": _("Fishing"),
    "generic": _("Generic"),
    "hazard": _("Hazard"),
    "ice": _("Ice"),
    "ice-rink": _("Ice rink"),
    "lodge": _("Lodge"),
    "lodging": _("Lodging"),
    "mud": _("Mud"),
    "parking": _("Parking"),
    "parking-busy": _("Parking (busy)"),
    "parking-very-busy": _("Parking (very busy)"),
    "playground": _("Playground"),
    "restaurant": _("Restaurant"),
    "restroom": _("Restroom"),
    "scenic": _("Scenic view"),
    "star": _("Star"),
    "trailhead": _("Trailhead"),
    "wait-time": _("Wait time"),
    "water-access": _("Water access"),
    "web-cam": _("Web cam"),
    "yurt": _("Yurt"),
}

MarkerClass = models.TextChoices(
    "MarkerClass", [(v, (v, MARKER_LABELS[v])) for v in MARKER_CLASSES]
)


class Language(models.TextChoices):
    EN = "en", "English"
    FR = "fr", "Français"


class TempMeasurement(models.TextChoices):
    FAHRENHEIT = "fahrenheit", _("Fahrenheit")
    CELSIUS = "celsius", _("Celsius")


class Role(models.TextChoices):
    """Named roles; any other name in permissions is accepted and acts like a Trustee."""

    ADMINISTRATOR = "Administrator", _("Administrator")
    TRUSTEE = "Trustee", _("Trustee")


def role_label(role: str) -> str:
    """A named role in the reader's language; any other role name as it is."""
    return Role(role).label if role in Role.values else role
