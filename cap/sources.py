"""What calls for a CAP alert, as the `info` block of its messages: pure, no database.

A notice of severity danger, and a closure for avalanche control, avalanche hazard or fire
(cap.selectors.CAP_REASONS), each one thread of messages. Its `area` is the closed stretch
buffered to a polygon, or the box of the system's trails; `urgency`, `severity` and
`certainty` come from the tables below (the developers' CAP page lists them)."""

from datetime import datetime
from typing import NamedTuple
from zoneinfo import ZoneInfo

import shapely
from django.utils.translation import gettext

from closures.models import Closure
from closures.reasons import Reason
from core.text import xml_text
from trails.geodesy import Box, LocalProjection, grown
from trails.geometry import lines
from updates.enums import NoticeSeverity
from updates.models import Update

# How far around a closed stretch its alert's polygon reaches, and around the system's trails.
BUFFER_METRES = 100.0
# The polygon's outline is simplified this much (its points stay within it of the buffer).
SIMPLIFY_METRES = 10.0
# CAP's coordinates are written with this many decimals (about a metre).
DECIMALS = 5
# A headline this long at most (CAP asks for fewer than 160 characters).
HEADLINE_MAX = 159


class Grade(NamedTuple):
    """CAP's severity and certainty of a warning; its urgency comes from when it starts."""

    severity: str
    certainty: str
    categories: tuple[str, ...]


CLOSURE_GRADES = {
    Reason.AVALANCHE_CONTROL: Grade("Extreme", "Observed", ("Safety",)),
    Reason.AVALANCHE_HAZARD: Grade("Severe", "Likely", ("Safety",)),
    Reason.FIRE: Grade("Severe", "Observed", ("Safety", "Fire")),
}
NOTICE_GRADE = Grade("Severe", "Observed", ("Safety",))
# A closure in effect asks for action now; a planned one, later.
URGENCY_IN_EFFECT = "Immediate"
URGENCY_PLANNED = "Future"
# What a reader of a closure's alert is to do.
CLOSURE_RESPONSE = "Avoid"


def cap_time(moment: datetime, zone: ZoneInfo) -> str:
    """As CAP 1.2 writes a time: whole seconds and a numeric offset, UTC as -00:00."""
    written = moment.astimezone(zone).replace(microsecond=0).isoformat()
    return written.removesuffix("+00:00") + "-00:00" if written.endswith("+00:00") else written


def _point(lng: float, lat: float) -> str:
    return f"{lat:.{DECIMALS}f},{lng:.{DECIMALS}f}"


def _ring(positions: list[list[float]]) -> str:
    """A CAP polygon: "lat,lng" pairs, the first repeated last."""
    return " ".join(_point(lng, lat) for lng, lat in positions)


def stretch_polygons(geometry: dict) -> list[str]:
    """The stretch's line buffered by BUFFER_METRES, as CAP polygons (one per part where the
    buffer falls apart)."""
    parts = lines(geometry)
    projection = LocalProjection.around(parts)
    line = shapely.union_all(projection.linestrings(parts))
    area = line.buffer(BUFFER_METRES, quad_segs=4).simplify(SIMPLIFY_METRES)
    polygons = area.geoms if isinstance(area, shapely.MultiPolygon) else [area]
    return [_ring(projection.positions(polygon.exterior)) for polygon in polygons]


def box_polygon(box: Box) -> str:
    """The box grown by BUFFER_METRES, as a CAP polygon."""
    west, south, east, north = grown(box, BUFFER_METRES)
    return _ring([[west, south], [west, north], [east, north], [east, south], [west, south]])


def _headline(text: str) -> str:
    return text if len(text) <= HEADLINE_MAX else text[: HEADLINE_MAX - 1] + "…"


def _info(
    *,
    language: str,
    grade: Grade,
    event: str,
    urgency: str,
    headline: str,
    description: str,
    sender_name: str,
    web: str,
    area: dict,
    event_code: dict,
    **extra: object,
) -> dict:
    """An info block as JSON, in CAP's names: what the alert documents are written from,
    and the feed's entries too (so both hold only what XML can)."""
    info = {
        "language": language,
        "category": list(grade.categories),
        "event": event,
        "urgency": urgency,
        "severity": grade.severity,
        "certainty": grade.certainty,
        "eventCode": [event_code],
        "senderName": sender_name,
        "headline": _headline(headline),
        "description": description,
        "web": web,
        "area": [area],
    }
    info.update({name: value for name, value in extra.items() if value})
    return xml_text(info)


def closure_info(
    closure: Closure, *, language: str, zone: ZoneInfo, sender_name: str, web: str
) -> dict:
    """A closure with `.stretch` and `.active` (closures.selectors.shown), in the active
    language."""
    reason = str(Reason(closure.reason).label)
    detour = closure.detour and gettext("Detour: {detour}").replace("{detour}", closure.detour)
    return _info(
        language=language,
        grade=CLOSURE_GRADES[closure.reason],
        event=reason,
        urgency=URGENCY_IN_EFFECT if closure.active else URGENCY_PLANNED,
        headline=gettext("%(reason)s: %(trail)s") % {"reason": reason, "trail": closure.trail.name},
        description=closure.note or reason,
        sender_name=sender_name,
        web=web,
        area={
            "areaDesc": closure.trail.name,
            "polygon": stretch_polygons(closure.stretch.geometry),
        },
        event_code={"valueName": "reason", "value": closure.reason},
        responseType=[CLOSURE_RESPONSE],
        onset=cap_time(closure.starts_at, zone),
        expires=closure.ends_at and cap_time(closure.ends_at, zone),
        instruction=detour,
    )


def notice_info(
    notice: Update,
    *,
    language: str,
    zone: ZoneInfo,
    sender_name: str,
    web: str,
    box: Box | None,
) -> dict | None:
    """A danger notice with its trails prefetched; None when it names only hidden trails."""
    named = list(notice.trails.all())
    trails = [trail for trail in named if not trail.hidden]
    if named and not trails and not notice.all_trails:
        return None
    if notice.all_trails:
        where = gettext("All trails")
    else:
        where = ", ".join(trail.name for trail in trails) or sender_name
    return _info(
        language=language,
        grade=NOTICE_GRADE,
        event=str(NoticeSeverity.DANGER.label),
        urgency=URGENCY_IN_EFFECT,
        headline=notice.description.split("\n")[0],
        description=notice.description,
        sender_name=sender_name,
        web=notice.link_url or web,
        area={"areaDesc": where, "polygon": [box_polygon(box)] if box else []},
        event_code={"valueName": "noticeSeverity", "value": notice.severity},
        expires=cap_time(notice.expiration_date, zone),
    )
