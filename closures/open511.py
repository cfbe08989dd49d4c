"""Open511 (open511.org, version v1), the format road services such as DriveBC publish their
events in: a system's closures and notices as Open511 events, its jurisdiction document, and
the filters Open511 defines. Pure: no database, no HTTP.

A document is built once, in Open511's JSON form; its XML form is written from it by Open511's
own mapping (a list is a plural element of singular ones, a `url` or `*_url` key a link, a
GeoJSON geometry GML 3 in latitude-longitude order), so both forms hold the same events."""

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from lxml import etree
from shapely.geometry import box, shape

from closures.models import Closure
from closures.reasons import OPEN511
from closures.selectors import Stretch
from core.dates import iso_ms
from core.errors import Invalid
from core.text import xml_text
from updates.enums import NoticeSeverity
from updates.models import Update

VERSION = "v1"
ACTIVE, ARCHIVED = "ACTIVE", "ARCHIVED"
# An event that ended stays in the feeds this long, ARCHIVED, so a reader that polls sees it end.
ARCHIVED_FOR = timedelta(hours=24)
EVENT_TYPES = ("CONSTRUCTION", "SPECIAL_EVENT", "INCIDENT", "WEATHER_CONDITION", "ROAD_CONDITION")
EVENT_SUBTYPES = (
    "ACCIDENT", "SPILL", "OBSTRUCTION", "HAZARD", "ROAD_MAINTENANCE", "ROAD_CONSTRUCTION",
    "EMERGENCY_MAINTENANCE", "PLANNED_EVENT", "CROWD", "HAIL", "THUNDERSTORM", "HEAVY_DOWNPOUR",
    "STRONG_WINDS", "BLOWING_DUST", "SANDSTORM", "INSECT_SWARMS", "AVALANCHE_HAZARD",
    "SURFACE_WATER_HAZARD", "MUD", "LOOSE_GRAVEL", "OIL_ON_ROADWAY", "FIRE",
    "SIGNAL_LIGHT_FAILURE", "PARTLY_ICY", "ICE_COVERED", "PARTLY_SNOW_PACKED", "SNOW_PACKED",
    "PARTLY_SNOW_COVERED", "SNOW_COVERED", "DRIFTING_SNOW", "POOR_VISIBILITY",
    "ALMOST_IMPASSABLE", "PASSABLE_WITH_CARE",
)  # fmt: skip
SEVERITIES = ("MINOR", "MODERATE", "MAJOR", "UNKNOWN")
# A closed stretch cannot be passed: Open511's "major impact, e.g. road closure".
CLOSURE_SEVERITY = "MAJOR"
NOTICE_SEVERITY = {
    NoticeSeverity.INFO: "MINOR",
    NoticeSeverity.WARNING: "MODERATE",
    NoticeSeverity.DANGER: "MAJOR",
}
# A notice says something about the trails; Open511 has no type for news, an incident is nearest.
NOTICE_EVENT_TYPE = "INCIDENT"
HEADLINE_MAX = 200
GML = "http://www.opengis.net/gml"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
_INTERVAL_TIME = "%Y-%m-%dT%H:%M"


def jurisdiction_id(system_id: str, host: str) -> str:
    """The system as an Open511 jurisdiction: a name under the service's host, in the lower
    case Open511 allows, each capital of the id written as a hyphen and the letter
    (`demoLostTrailPowder1` on trails.example.org: demo-lost-trail-powder1.trails.example.org).
    Open511 lets no name start with a hyphen: a leading capital is only lowered, the one case
    where two ids (`Abc`, `abc`) could share a name; random ids practically never do."""
    name = re.sub(r"[A-Z]", lambda capital: "-" + capital.group().lower(), system_id)
    return f"{name.lstrip('-')}.{host.lower()}"


@dataclass(frozen=True)
class Jurisdiction:
    """What every event of one system names: its jurisdiction and where its documents are."""

    id: str
    url: str  # the jurisdiction document
    zone: ZoneInfo
    language: str


@dataclass(frozen=True)
class EventFacts:
    """One event before it is written: what the filters look at, and what the document shows."""

    key: str  # unique within the jurisdiction: kind and row id
    headline: str
    description: str
    event_type: str
    subtypes: tuple[str, ...]
    severity: str
    geography: dict
    created: datetime
    updated: datetime
    starts_at: datetime
    ends_at: datetime | None  # none: until further notice
    ended: bool  # the end has come: ARCHIVED
    detour: str = ""
    roads: list[dict] = field(default_factory=list)

    @property
    def status(self) -> str:
        return ARCHIVED if self.ended else ACTIVE


def _ended_on(end: datetime | None, now: datetime) -> datetime | None:
    return end if end is not None and end <= now else None


def closure_facts(
    closure: Closure, stretch: Stretch, *, headline: str, description: str, now: datetime
) -> EventFacts:
    """A closure, in effect, planned or ended: its reason's Open511 type and subtype, its
    stretch as the geography, the trail as the road it closes. Ending it (reopened, or its
    end reached) makes it ARCHIVED and counts as an update."""
    open511 = OPEN511[closure.reason]
    ended_on = closure.ended_on or _ended_on(closure.ends_at, now)
    return EventFacts(
        key=f"closure-{closure.pk}",
        headline=headline[:HEADLINE_MAX],
        description=description,
        event_type=open511.event_type,
        subtypes=(open511.event_subtype,),
        severity=CLOSURE_SEVERITY,
        geography=stretch.geometry,
        created=closure.created_on,
        updated=max(closure.updated_on, ended_on or closure.updated_on),
        starts_at=closure.starts_at,
        ends_at=max(ended_on, closure.starts_at) if ended_on else closure.ends_at,
        ended=ended_on is not None,
        detour=closure.detour,
        roads=[{"name": closure.trail.name, "direction": "BOTH", "state": "CLOSED"}],
    )


def notice_facts(
    update: Update, trail_names: list[str], geography: dict, *, now: datetime
) -> EventFacts:
    """A notice, from its posting to its expiration: its first line as the headline, its
    severity as Open511's, the trails it names as roads."""
    description = "\n".join(line for line in (update.description, update.link_url) if line)
    expired = _ended_on(update.expiration_date, now)
    return EventFacts(
        key=f"notice-{update.pk}",
        headline=update.description.split("\n")[0][:HEADLINE_MAX],
        description=description,
        event_type=NOTICE_EVENT_TYPE,
        subtypes=(),
        severity=NOTICE_SEVERITY.get(update.severity or NoticeSeverity.INFO, "UNKNOWN"),
        geography=geography,
        created=update.created_on,
        updated=max(update.updated_on, expired or update.updated_on),
        starts_at=update.created_on,
        ends_at=update.expiration_date,
        ended=expired is not None,
        roads=[{"name": name} for name in trail_names],
    )


# Documents (Open511's JSON form)


def _interval(facts: EventFacts, zone: ZoneInfo) -> str:
    """Local times without seconds, as Open511 writes them (the event names its zone); no end:
    until further notice."""
    start = facts.starts_at.astimezone(zone).strftime(_INTERVAL_TIME)
    end = facts.ends_at.astimezone(zone).strftime(_INTERVAL_TIME) if facts.ends_at else ""
    return f"{start}/{end}"


def event_id(facts: EventFacts, jurisdiction: Jurisdiction) -> str:
    return f"{jurisdiction.id}/{facts.key}"


def event(facts: EventFacts, jurisdiction: Jurisdiction, url: str) -> dict:
    """One event; `url` is its own address (Open511's self link)."""
    document = {
        "url": url,
        "jurisdiction_url": jurisdiction.url,
        "id": event_id(facts, jurisdiction),
        "status": facts.status,
        "headline": facts.headline,
        "description": facts.description,
        "event_type": facts.event_type,
        "event_subtypes": list(facts.subtypes),
        "severity": facts.severity,
        "created": iso_ms(facts.created),
        "updated": iso_ms(facts.updated),
        "detour": facts.detour,
        "geography": facts.geography,
        "roads": facts.roads,
        "timezone": jurisdiction.zone.key,
        "schedule": {"intervals": [_interval(facts, jurisdiction.zone)]},
    }
    # Open511 leaves out what is empty (its elements are optional, none may be blank).
    return xml_text({name: value for name, value in document.items() if value not in ("", [])})


def events_document(events: list[dict], url: str) -> dict:
    return {"meta": {"version": VERSION, "url": url}, "events": events}


@dataclass(frozen=True)
class Contact:
    """What a jurisdiction document says of its publisher beside the system's own name."""

    email: str
    license_url: str
    geography_url: str
    phone: str = ""
    description: str = ""
    website: str = ""


def jurisdiction_document(name: str, jurisdiction: Jurisdiction, contact: Contact) -> dict:
    """The system as an Open511 jurisdiction: its name, contact, licence and area."""
    entry = {
        "id": jurisdiction.id,
        "name": name,
        "email": contact.email,
        "phone": contact.phone,
        "description": contact.description,
        "timezone": jurisdiction.zone.key,
        "languages": [jurisdiction.language],
        "url": jurisdiction.url,
        "geography_url": contact.geography_url,
        "license_url": contact.license_url,
        "description_url": contact.website,
    }
    entry = xml_text({key: value for key, value in entry.items() if value})
    return {"meta": {"version": VERSION, "url": jurisdiction.url}, "jurisdictions": [entry]}


def geography_document(area: dict | None, url: str) -> dict:
    """The jurisdiction's area (the system's extent); none for a system with no trails."""
    return {"meta": {"version": VERSION, "url": url}, "geographies": [area] if area else []}


def extent_polygon(west: float, south: float, east: float, north: float) -> dict:
    ring = [[west, south], [east, south], [east, north], [west, north], [west, south]]
    return {"type": "Polygon", "coordinates": [ring]}


# Filters


@dataclass(frozen=True)
class TimeFilter:
    """`updated=>2026-11-29T08:00:00Z`: Open511's operator before the time (none: equal)."""

    operator: str
    at: datetime

    def holds(self, value: datetime) -> bool:
        return {
            "<": value < self.at,
            "<=": value <= self.at,
            ">": value > self.at,
            ">=": value >= self.at,
            "": value == self.at,
        }[self.operator]


@dataclass(frozen=True)
class EventFilters:
    """Open511's filters of the events resource; None: not asked."""

    status: frozenset[str] | None = None
    event_type: frozenset[str] | None = None
    event_subtype: frozenset[str] | None = None
    severity: frozenset[str] | None = None
    jurisdiction: frozenset[str] | None = None
    id: frozenset[str] | None = None
    bbox: tuple[float, float, float, float] | None = None
    created: TimeFilter | None = None
    updated: TimeFilter | None = None
    in_effect_on: tuple[datetime, datetime | None] | None = None

    def keep(self, facts: EventFacts, jurisdiction: Jurisdiction) -> bool:
        return (
            (self.status is None or facts.status in self.status)
            and (self.event_type is None or facts.event_type in self.event_type)
            and (self.event_subtype is None or bool(self.event_subtype & set(facts.subtypes)))
            and (self.severity is None or facts.severity in self.severity)
            and (self.jurisdiction is None or jurisdiction.id in self.jurisdiction)
            and (self.id is None or event_id(facts, jurisdiction) in self.id)
            and (self.bbox is None or box(*self.bbox).intersects(shape(facts.geography)))
            and (self.created is None or self.created.holds(facts.created))
            and (self.updated is None or self.updated.holds(facts.updated))
            and (self.in_effect_on is None or _in_effect(facts, *self.in_effect_on))
        )


def _in_effect(facts: EventFacts, start: datetime, end: datetime | None) -> bool:
    """In effect at `start`, or at some time from `start` to `end`."""
    began = facts.starts_at <= (end or start)
    return began and (facts.ends_at is None or facts.ends_at > start)


ALL_STATUSES = "ALL"
_TIME_OPERATORS = ("<=", ">=", "<", ">")
# `?updated>2026-...` reads as a parameter named so: a reader meant Open511's `updated=>...`.
_MISPLACED_OPERATOR = re.compile(r"(created|updated)[<>]")
# In-effect windows longer than this are refused, as Open511's reference server does.
IN_EFFECT_DAYS_MAX = 40


def _refused(name: str, message: str) -> Invalid:
    """The parameter named as Open511 spells it (`event_type`), which the envelope would
    camel-case were it given as the field."""
    return Invalid("invalid_filter", f"{name}: {message}")


def _choices(name: str, value: str, allowed: tuple[str, ...]) -> frozenset[str]:
    chosen = frozenset(part.strip().upper() for part in value.split(",") if part.strip())
    unknown = sorted(chosen - set(allowed))
    if unknown or not chosen:
        raise _refused(
            name, f"{', '.join(unknown) or 'nothing'} is not one of {', '.join(allowed)}."
        )
    return chosen


def _time(name: str, value: str) -> datetime:
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None:
        raise _refused(
            name, f"{value!r} is not an ISO 8601 time with its offset (2026-11-29T08:00:00Z)."
        )
    return moment


def _time_filter(name: str, value: str) -> TimeFilter:
    operator = next((op for op in _TIME_OPERATORS if value.startswith(op)), "")
    return TimeFilter(operator, _time(name, value[len(operator) :]))


def _bbox(value: str) -> tuple[float, float, float, float]:
    message = "four numbers: min longitude,min latitude,max longitude,max latitude (WGS84)."
    try:
        west, south, east, north = (float(part) for part in value.split(","))
    except ValueError:
        raise _refused("bbox", message) from None
    if not (-180 <= west <= east <= 180 and -90 <= south <= north <= 90):
        raise _refused("bbox", message)
    return west, south, east, north


def _in_effect_on(value: str, now: datetime) -> tuple[datetime, datetime | None]:
    if value.strip().lower() == "now":
        return now, None
    first, _, second = value.partition(",")
    start = _time("in_effect_on", first)
    if not second:
        return start, None
    end = _time("in_effect_on", second)
    if not timedelta(0) <= end - start <= timedelta(days=IN_EFFECT_DAYS_MAX):
        raise _refused(
            "in_effect_on",
            f"the end must follow the start, within {IN_EFFECT_DAYS_MAX} days of it.",
        )
    return start, end


def _status(value: str) -> frozenset[str] | None:
    if value.strip().upper() == ALL_STATUSES:
        return None
    return _choices("status", value, (ACTIVE, ARCHIVED))


def _names(value: str) -> frozenset[str]:
    return frozenset(part.strip() for part in value.split(",") if part.strip())


def check_version(query: Mapping[str, str]) -> None:
    version = query.get("version")
    if version is not None and version != VERSION:
        raise Invalid(
            "unsupported_version", f"version {version!r}: this service speaks {VERSION} only."
        )


def event_filters(query: Mapping[str, str], now: datetime) -> EventFilters:
    """The filters a query asks for; an unknown value, or a filter written as `updated>...`
    rather than Open511's `updated=>...`, is refused (Invalid) rather than ignored."""
    check_version(query)
    parsers = {
        "status": _status,
        "event_type": lambda value: _choices("event_type", value, EVENT_TYPES),
        "event_subtype": lambda value: _choices("event_subtype", value, EVENT_SUBTYPES),
        "severity": lambda value: _choices("severity", value, SEVERITIES),
        "jurisdiction": _names,
        "id": _names,
        "bbox": _bbox,
        "created": lambda value: _time_filter("created", value),
        "updated": lambda value: _time_filter("updated", value),
        "in_effect_on": lambda value: _in_effect_on(value, now),
    }
    asked = {}
    for name, value in query.items():
        if name in parsers:
            asked[name] = parsers[name](value)
            continue
        misplaced = _MISPLACED_OPERATOR.match(name)
        if misplaced:
            raise _refused(
                misplaced[1],
                f"write the operator after the equals sign: {misplaced[1]}=>2026-11-29T08:00:00Z.",
            )
    return replace(EventFilters(), **asked)


# The XML form


def _positions(coordinates: list) -> str:
    """GML 3's order: latitude first."""
    return " ".join(f"{float(lat)!r} {float(lng)!r}" for lng, lat, *_ in coordinates)


def _gml(geometry: dict, *, top: bool = True) -> etree._Element:
    kind, coordinates = geometry["type"], geometry["coordinates"]
    element = etree.Element(f"{{{GML}}}{kind}")
    if top:
        element.set("srsName", "urn:ogc:def:crs:EPSG::4326")
    if kind == "Point":
        etree.SubElement(element, f"{{{GML}}}pos").text = _positions([coordinates])
    elif kind == "LineString":
        etree.SubElement(element, f"{{{GML}}}posList").text = _positions(coordinates)
    elif kind == "Polygon":
        for number, ring in enumerate(coordinates):
            side = etree.SubElement(element, f"{{{GML}}}{'interior' if number else 'exterior'}")
            linear_ring = etree.SubElement(side, f"{{{GML}}}LinearRing")
            etree.SubElement(linear_ring, f"{{{GML}}}posList").text = _positions(ring)
    else:  # MultiLineString, MultiPolygon, MultiPoint
        single = kind.removeprefix("Multi")
        member = single[0].lower() + single[1:] + "Member"
        for part in coordinates:
            holder = etree.SubElement(element, f"{{{GML}}}{member}")
            holder.append(_gml({"type": single, "coordinates": part}, top=False))
    return element


def _link(name: str, href: str) -> etree._Element:
    rel = "self" if name == "url" else name.removesuffix("_url")
    return etree.Element("link", rel=rel, href=href)


def _singular(name: str) -> str:
    return name[:-3] + "y" if name.endswith("ies") else name.removesuffix("s")


def _element(name: str, value: object) -> etree._Element:
    element = etree.Element(name)
    if isinstance(value, dict) and set(value) == {"type", "coordinates"}:
        element.append(_gml(value))
    elif isinstance(value, dict):
        for key, item in value.items():
            is_link = key == "url" or key.endswith("_url")
            element.append(_link(key, item) if is_link else _element(key, item))
    elif isinstance(value, list):
        element.extend(_element(_singular(name), item) for item in value)
    else:
        element.text = str(value)
    return element


def xml_document(document: dict, language: str) -> bytes:
    """The XML form of a document in Open511's JSON form."""
    root = etree.Element("open511", nsmap={"gml": GML}, version=document["meta"]["version"])
    root.set(XML_LANG, language)
    for name, value in document.items():
        if name != "meta":
            root.append(_element(name, value))
    root.append(_link("url", document["meta"]["url"]))
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True)
