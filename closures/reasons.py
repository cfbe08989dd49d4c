"""Why a stretch of trail is closed: the fixed list, and each reason's Open511 event type and
subtype (the Open511 specification's own values), for feeds that publish closures as road
services publish theirs. The one place that list and mapping live."""

from typing import NamedTuple

from django.db import models
from django.utils.translation import gettext_lazy as _


class Reason(models.TextChoices):
    AVALANCHE_CONTROL = "avalancheControl", _("Avalanche control")
    AVALANCHE_HAZARD = "avalancheHazard", _("Avalanche hazard")
    FALLEN_TREE = "fallenTree", _("Fallen tree")
    WASHOUT = "washout", _("Washout")
    FLOODING = "flooding", _("Flooding")
    ICE = "ice", _("Ice")
    MUD = "mud", _("Mud")
    LOGGING = "logging", _("Logging")
    CONSTRUCTION = "construction", _("Construction")
    EVENT = "event", _("Event")
    WILDLIFE = "wildlife", _("Wildlife")
    FIRE = "fire", _("Fire")
    SNOW_COVER = "snowCover", _("Snow cover")
    GROOMING = "grooming", _("Grooming")
    OTHER = "other", _("Other")


class Open511(NamedTuple):
    """An Open511 event's `event_type` and `event_subtype`."""

    event_type: str
    event_subtype: str


OPEN511 = {
    Reason.AVALANCHE_CONTROL: Open511("WEATHER_CONDITION", "AVALANCHE_HAZARD"),
    Reason.AVALANCHE_HAZARD: Open511("WEATHER_CONDITION", "AVALANCHE_HAZARD"),
    Reason.FALLEN_TREE: Open511("INCIDENT", "OBSTRUCTION"),
    Reason.WASHOUT: Open511("INCIDENT", "HAZARD"),
    Reason.FLOODING: Open511("ROAD_CONDITION", "SURFACE_WATER_HAZARD"),
    Reason.ICE: Open511("ROAD_CONDITION", "ICE_COVERED"),
    Reason.MUD: Open511("ROAD_CONDITION", "MUD"),
    Reason.LOGGING: Open511("INCIDENT", "HAZARD"),
    Reason.CONSTRUCTION: Open511("CONSTRUCTION", "ROAD_CONSTRUCTION"),
    Reason.EVENT: Open511("SPECIAL_EVENT", "PLANNED_EVENT"),
    Reason.WILDLIFE: Open511("INCIDENT", "HAZARD"),
    Reason.FIRE: Open511("ROAD_CONDITION", "FIRE"),
    Reason.SNOW_COVER: Open511("ROAD_CONDITION", "SNOW_COVERED"),
    Reason.GROOMING: Open511("CONSTRUCTION", "ROAD_MAINTENANCE"),
    Reason.OTHER: Open511("INCIDENT", "HAZARD"),
}
