"""A ski area's report in MTN.XML 1.0, the snow-report format resorts still serve to signage
and snow-report partners (docs/developers/mtnxml.md says which sources its structure follows
and what is uncertain). Read from what the system published (the trails and lifts of its
published file, the snow report of its document, as the map shows them) and from the
grooming log (groomed today, in the system's time zone); written by a pure function."""

from dataclasses import dataclass
from datetime import datetime, tzinfo

from lxml import etree

from grooming.selectors import groomed_on_day, last_groomed
from public.selectors import published_trails
from trails.enums import Difficulty, TrailStatus, TrailType
from trails.models import TrailActivity, TrailSystem
from trails.timezones import zone_of
from updates.enums import UpdateType

CONTENT_TYPE = "application/xml; charset=utf-8"
# The document type the format's 1.0 files declare (its DTD's address is no longer served).
DOCTYPE = '<!DOCTYPE report PUBLIC "MTN.XML 1.0" "http://mtnxml.org/dtd/mtnxml-1.0.dtd">'

# The activities a ski report is about: alpine, then nordic.
SKI_ACTIVITIES = frozenset({"skiing", "nordic-classic", "nordic-skate"})
# Our trail-sign shapes to MTN.XML's words (North American signs: green circle, blue square,
# black diamond, double black diamond). A terrain park is listed under freestyleTerrain.
DIFFICULTIES = {
    Difficulty.CIRCLE: "novice",
    Difficulty.SQUARE: "intermediate",
    Difficulty.DIAMOND: "advanced",
    Difficulty.DOUBLE_DIAMOND: "expert",
}
# MTN.XML knows open and closed: a trail on caution is open.
STATUSES = {
    TrailStatus.OPEN: "Open",
    TrailStatus.CAUTION: "Open",
    TrailStatus.CLOSED: "Closed",
}
UNITS = {"inches": "imperial", "centimeters": "metric"}
# A location's snow attributes from the snow report's fields, in the system's depth unit.
SNOW_ATTRIBUTES = (
    ("base", "baseDepth"),
    ("snow24Hours", "twentyFourHours"),
    ("snow48Hours", "fourtyEightHours"),
    ("snow7Days", "sevenDays"),
    ("snowSeasonTotal", "seasonTotal"),
)


@dataclass(frozen=True)
class Run:
    """A trail or a lift as the report lists it."""

    name: str
    status: str  # ours: Open, Caution or Closed
    difficulty: str = ""  # ours, "" for a lift or a trail not rated
    groomed: bool = False


@dataclass(frozen=True)
class SkiReport:
    name: str
    updated: datetime
    depth_unit: str
    zone: tzinfo
    trails: list[Run]
    lifts: list[Run]
    snow_report: dict | None  # the latest snow report as the system's document holds it


def has_ski_trails(system: TrailSystem) -> bool:
    """Whether the system has a visible trail for alpine or nordic skiing (its report's
    condition, asked in one query where the report itself is not read)."""
    return (
        TrailActivity.objects.filter(
            trail__trail_system=system,
            trail__trashed_on__isnull=True,
            trail__hidden=False,
            value__in=SKI_ACTIVITIES,
        )
        .exclude(trail__type=TrailType.LIFT)
        .exists()
    )


def _ski_status(trail: dict) -> str:
    """The trail's status for skiing: closed with the trail, else the best of its ski
    activities' (the map's rule for a trail's own status, applied to them)."""
    if trail["status"] == TrailStatus.CLOSED:
        return TrailStatus.CLOSED
    statuses = {a["status"] for a in trail["activities"] if a["value"] in SKI_ACTIVITIES}
    for status in (TrailStatus.OPEN, TrailStatus.CAUTION):
        if status in statuses:
            return status
    return TrailStatus.CLOSED


def _difficulty(trail: dict) -> str:
    """A ski activity's own difficulty first (a run rated for skiing), else the trail's."""
    for activity in trail["activities"]:
        if activity["value"] in SKI_ACTIVITIES and activity.get("difficulty"):
            return activity["difficulty"]
    return trail.get("difficulty") or ""


def _latest_snow_report(system: TrailSystem, now: datetime) -> dict | None:
    reports = (system.published_updates or {}).get(UpdateType.SNOW_REPORT, [])
    live = [r for r in reports if datetime.fromisoformat(r["expirationDate"]) > now]
    return max(live, key=lambda report: report["updatedOn"], default=None)


def ski_report(system: TrailSystem, now: datetime) -> SkiReport | None:
    """The system's report; None when it publishes no trail for alpine or nordic skiing."""
    published = published_trails(system)
    ski_trails = [
        trail
        for trail in published
        if trail.get("type") != TrailType.LIFT
        and any(a["value"] in SKI_ACTIVITIES for a in trail["activities"])
    ]
    if not ski_trails:
        return None
    zone = zone_of(system)
    groomed = {
        entry.trail_id
        for entry in last_groomed(system.pk)
        if groomed_on_day(entry.last_groomed_on, zone, now)
    }
    trails = [
        Run(trail["name"], _ski_status(trail), _difficulty(trail), trail["trailId"] in groomed)
        for trail in ski_trails
    ]
    lifts = [Run(t["name"], t["status"]) for t in published if t.get("type") == TrailType.LIFT]
    return SkiReport(
        name=system.name,
        updated=system.compiled_on or system.updated_on,
        depth_unit=system.depth_measurement,
        zone=zone,
        trails=trails,
        lifts=lifts,
        snow_report=_latest_snow_report(system, now),
    )


def _yes_no(value: bool) -> str:
    return "Yes" if value else "No"


def _number(value: float) -> str:
    return f"{value:g}"


def _conditions(report: SkiReport, parent: etree._Element) -> None:
    open_trails = [t for t in report.trails if STATUSES[t.status] == "Open"]
    resortwide = etree.SubElement(
        parent,
        "resortwide",
        numTrailsOpen=str(len(open_trails)),
        numTrailsGroomed=str(sum(t.groomed for t in report.trails)),
        numLiftsOpen=str(sum(STATUSES[lift.status] == "Open" for lift in report.lifts)),
    )
    snow = report.snow_report
    if snow is None:
        return
    if snow.get("lastSnowDate"):
        last_snow = datetime.fromisoformat(snow["lastSnowDate"]).astimezone(report.zone)
        resortwide.set("lastSnowfallDate", last_snow.date().isoformat())
    location = etree.SubElement(etree.SubElement(parent, "resortLocations"), "location")
    location.set("name", report.name)
    for attribute, field in SNOW_ATTRIBUTES:
        if snow.get(field) is not None:
            location.set(attribute, _number(snow[field]))


def _facilities(report: SkiReport, parent: etree._Element) -> None:
    area = etree.SubElement(etree.SubElement(parent, "areas"), "area", name=report.name)
    lifts = etree.SubElement(area, "lifts")
    for lift in report.lifts:
        etree.SubElement(lifts, "lift", name=lift.name, status=STATUSES[lift.status])
    trails = etree.SubElement(area, "trails")
    parks = []
    for trail in report.trails:
        if trail.difficulty == Difficulty.TERRAIN_PARK:
            parks.append(trail)
            continue
        element = etree.SubElement(trails, "trail", name=trail.name)
        element.set("status", STATUSES[trail.status])
        element.set("groomed", _yes_no(trail.groomed))
        if trail.difficulty in DIFFICULTIES:
            element.set("difficulty", DIFFICULTIES[trail.difficulty])
    if parks:
        listed = etree.SubElement(etree.SubElement(area, "freestyleTerrain"), "parks")
        for park in parks:
            etree.SubElement(
                listed,
                "park",
                name=park.name,
                status=STATUSES[park.status],
                groomedOrCut=_yes_no(park.groomed),
            )


def mtnxml_document(report: SkiReport) -> bytes:
    """The report as an MTN.XML 1.0 document: pure, no database."""
    root = etree.Element("report", name=report.name)
    root.set("updated", str(int(report.updated.timestamp())))
    root.set("units", UNITS.get(report.depth_unit, "imperial"))
    is_open = any(STATUSES[run.status] == "Open" for run in (*report.trails, *report.lifts))
    etree.SubElement(root, "operations", resortStatus="Open" if is_open else "Closed")
    _conditions(report, etree.SubElement(root, "currentConditions"))
    _facilities(report, etree.SubElement(root, "facilities"))
    return etree.tostring(
        root, xml_declaration=True, encoding="UTF-8", doctype=DOCTYPE, pretty_print=True
    )
