"""Reading a trail system from a running deployment's legacy read interface.

The source is this service's `/legacy` or the service it replaces (same shapes, spec section
4): the system document (`/ts/:id`), every trail (`/trails/:id`, geometry as a stringified
FeatureCollection), the published file (points and trail-level updates; there is no public
list of points) and each point's document (`/point/:id`, for its description and web-cam URL,
which the file leaves out). Everything is read first; only then is anything checked, and only
when everything checks out (or `skip_invalid` leaves out the bad parts) is anything written.
Ids and creation times are kept, so embeds keep working and lists keep their order.
"""

import json
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from urllib.parse import quote, urljoin

import requests
import urllib3
from django.db import transaction
from django.utils import timezone
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

from core.actors import Actor, Via
from core.ids import new_id
from trails import enums
from trails.importing import (
    InvalidInput,
    ParsedCollection,
    Problem,
    Properties,
    SystemDraft,
    draft_trail_system,
    parse_collection,
    write_trail_system,
)
from trails.models import TrailSystem
from updates.enums import NoticeSeverity, UpdateType
from updates.models import Update
from updates.services import import_update
from updates.types import UPDATE_TYPES

DEFAULT_TIMEOUT = 30.0
RETRIES = 3
SNOW_NUMBERS = {
    "baseDepth": "base_depth",
    "twentyFourHours": "twenty_four_hours",
    "fourtyEightHours": "fourty_eight_hours",
    "sevenDays": "seven_days",
    "seasonTotal": "season_total",
    "lastSnowAmount": "last_snow_amount",
    "upperElevationDepth": "upper_elevation_depth",
}
SNOW_DATES = {"lastSnowDate": "last_snow_date", "lastSnowMakingDate": "last_snow_making_date"}


class SourceError(Exception):
    """The source cannot be read, or does not answer in the legacy shapes."""


class LegacyClient:
    """GETs JSON with a timeout, retrying connection failures and 502/503/504 with backoff.
    The legacy interface answers 500 with an empty body for an unknown id: never retried."""

    def __init__(self, base_url: str, *, timeout: float = DEFAULT_TIMEOUT, retries: int = RETRIES):
        self.base_url = base_url.rstrip("/") + "/"
        self.timeout = timeout
        self.session = requests.Session()
        retry = Retry(
            total=retries,
            backoff_factor=0.5,
            status_forcelist=(502, 503, 504),
            allowed_methods=frozenset({"GET"}),
            raise_on_status=False,
        )
        self.session.mount("http://", HTTPAdapter(max_retries=retry))
        self.session.mount("https://", HTTPAdapter(max_retries=retry))
        self.retries = retries

    def get(self, path_or_url: str, what: str):
        url = urljoin(self.base_url, path_or_url)
        try:
            response = self.session.get(url, timeout=self.timeout)
        except requests.RequestException as error:
            cause = _cause(error)
            timed_out = requests.Timeout | TimeoutError | urllib3.exceptions.TimeoutError
            # urllib3's NewConnectionError (refused, unknown host) is a kind of timeout error.
            if isinstance(cause, timed_out) and not isinstance(
                cause, urllib3.exceptions.NewConnectionError
            ):
                raise SourceError(
                    f"{url} did not answer within {self.timeout:g} s ({what}), "
                    f"{self.retries} retries included."
                ) from None
            reason = str(cause).split(": ", 1)[-1]
            raise SourceError(
                f"Cannot reach {url} ({what}) after {self.retries} retries: {reason}"
            ) from None
        if response.status_code == 500 and not response.content:
            raise SourceError(
                f"{url} answered HTTP 500 with an empty body ({what}): the legacy interface's "
                "answer to an unknown id or a failure there. Check the id and the base URL."
            )
        if response.status_code != 200:
            raise SourceError(f"{url} answered HTTP {response.status_code} ({what}).")
        try:
            return response.json()
        except ValueError:
            raise SourceError(
                f"{url} did not answer JSON ({what}): is {self.base_url} the legacy interface "
                "(for this service, https://HOST/legacy)?"
            ) from None


def _cause(error: requests.RequestException) -> Exception:
    """What made requests give up: urllib3's last reason once retries ran out."""
    inner = error.args[0] if error.args else None
    return getattr(inner, "reason", None) or (inner if isinstance(inner, Exception) else error)


@dataclass
class LegacySnapshot:
    """Everything read from the source, as it came."""

    system_id: str
    system: dict
    trails: list
    published: dict
    points: dict[str, dict]


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise SourceError(f"The source does not answer in the legacy shapes: {message}")


def read_snapshot(client: LegacyClient, system_id: str) -> LegacySnapshot:
    """Every document the import needs, or SourceError before anything is checked or written."""
    quoted = quote(system_id, safe="")
    system = client.get(f"ts/{quoted}", f"trail system {system_id}")
    _require(
        isinstance(system, dict) and isinstance(system.get("name"), str),
        "/ts/:id is not a trail system document with a name.",
    )
    trails = client.get(f"trails/{quoted}", f"trails of {system_id}")
    _require(isinstance(trails, list), "/trails/:id is not a JSON array.")
    url = system.get("geoJsonUrl")
    _require(
        isinstance(url, str) and bool(url),
        "the trail system has no geoJsonUrl (never published?), so its points are unknown.",
    )
    published = client.get(url, "published map file")
    _require(
        isinstance(published, dict) and isinstance(published.get("features"), list),
        "the published file is not a GeoJSON FeatureCollection.",
    )
    points = {}
    for feature in published["features"]:
        point_id = _point_id(feature)
        if point_id:
            document = client.get(f"point/{quote(point_id, safe='')}", f"point {point_id}")
            _require(isinstance(document, dict), f"/point/{point_id} is not an object.")
            points[point_id] = document
    return LegacySnapshot(system_id, system, trails, published, points)


def _point_id(feature) -> str | None:
    properties = feature.get("properties") if isinstance(feature, dict) else None
    geometry = feature.get("geometry") if isinstance(feature, dict) else None
    if isinstance(geometry, dict) and geometry.get("type") == "Point":
        point_id = (properties or {}).get("pointId")
        return point_id if isinstance(point_id, str) and point_id else None
    return None


def moment(value) -> datetime | None:
    """A Firestore timestamp {_seconds, _nanoseconds} or an ISO string -> an aware datetime."""
    if isinstance(value, dict) and isinstance(value.get("_seconds"), int):
        micros = int(value.get("_nanoseconds") or 0) // 1000
        return datetime(1970, 1, 1, tzinfo=UTC) + timedelta(
            seconds=value["_seconds"], microseconds=micros
        )
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            return None
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    return None


# From documents to drafts


@dataclass
class UpdateDraft:
    id: str
    type: str
    expiration_date: datetime
    updated_on: datetime
    fields: dict
    trail_ids: set[str] = field(default_factory=set)


@dataclass
class LegacyImport:
    """What an import of one system will write."""

    system: SystemDraft
    updates: list[UpdateDraft]
    expired_updates: int = 0

    @property
    def parsed(self) -> ParsedCollection:
        return self.system.parsed

    def summary(self, verb: str) -> str:
        lines = [
            f"{verb} trail system {self.system.fields['id']} ({self.system.name}): "
            f"{len(self.parsed.trails)} trails, {len(self.parsed.points)} points, "
            f"{len(self.updates)} active updates."
        ]
        if self.expired_updates:
            lines.append(f"  left out {self.expired_updates} expired updates")
        lines += [f"  skipped {problem}" for problem in self.parsed.skipped]
        return "\n".join(lines)


def _geometry(text) -> dict:
    """The trail's line geometry from its stringified FeatureCollection (parts joined)."""
    collection = json.loads(text) if isinstance(text, str) else None
    if not isinstance(collection, dict) or not isinstance(collection.get("features"), list):
        raise ValueError("is not a stringified GeoJSON FeatureCollection.")
    parts: list = []
    for feature in collection["features"]:
        geometry = (feature or {}).get("geometry") or {}
        if geometry.get("type") == "LineString":
            parts.append(geometry.get("coordinates"))
        elif geometry.get("type") == "MultiLineString":
            parts += geometry.get("coordinates") or []
    if not parts:
        raise ValueError("holds no LineString or MultiLineString.")
    if len(parts) == 1:
        return {"type": "LineString", "coordinates": parts[0]}
    return {"type": "MultiLineString", "coordinates": parts}


TRAIL_KEYS = (
    "name",
    "description",
    "status",
    "difficulty",
    "type",
    "lineStyle",
    "hidden",
    "oneWay",
    "oneWayReversed",
    "order",
    "categories",
)
POINT_FILE_KEYS = ("name", "markerClass", "status", "hidden", "waitTime", "diningOptions")


def _trail_feature(document) -> tuple[dict, str | None]:
    """The trail in the import format, and why its geoJson is unusable (None when usable)."""
    if not isinstance(document, dict):
        return {"type": "Feature", "geometry": None, "properties": {}}, None
    properties = {key: document[key] for key in TRAIL_KEYS if key in document}
    properties["trailId"] = document.get("id")
    properties["activities"] = [
        {k: a[k] for k in ("value", "status", "difficulty") if k in a and a[k] != ""}
        if isinstance(a, dict)
        else a
        for a in document.get("activities") or []
    ]
    try:
        geometry, reason = _geometry(document.get("geoJson")), None
    except ValueError as error:  # json.JSONDecodeError included
        geometry, reason = None, str(error)
    return {"type": "Feature", "geometry": geometry, "properties": properties}, reason


def _point_feature(feature: dict, document: dict) -> dict:
    properties = {key: feature["properties"].get(key) for key in POINT_FILE_KEYS}
    properties["pointId"] = feature["properties"]["pointId"]
    properties["description"] = document.get("description")
    properties["webCamUrl"] = document.get("webCamUrl")
    return {"type": "Feature", "geometry": feature.get("geometry"), "properties": properties}


@dataclass
class _Combined:
    """The source's trails then its points as one collection in the import format."""

    collection: dict
    trail_count: int
    geojson_errors: dict[int, str]

    def located(self, problem: Problem) -> Problem:
        """A problem of the combined collection, named as the source's trail or point."""
        if problem.index >= self.trail_count:
            return replace(problem, unit="point", index=problem.index - self.trail_count)
        if problem.field == "geometry" and problem.index in self.geojson_errors:
            problem = replace(problem, field="geoJson", reason=self.geojson_errors[problem.index])
        return replace(problem, unit="trail")


def _combined(snapshot: LegacySnapshot) -> _Combined:
    trails = [_trail_feature(document) for document in snapshot.trails]
    features = [feature for feature, _ in trails]
    features += [
        _point_feature(f, snapshot.points[_point_id(f)])
        for f in snapshot.published["features"]
        if _point_id(f)
    ]
    errors = {i: reason for i, (_, reason) in enumerate(trails) if reason}
    return _Combined({"type": "FeatureCollection", "features": features}, len(trails), errors)


def _system_fields(document: dict) -> tuple[dict, list[Problem]]:
    props = Properties(document)
    fields = {
        "description": props.text("description", 2000),
        "phone_number": props.text("phoneNumber", 2000),
        "website": props.text("website", 2000),
        "language": props.choice("language", enums.Language.values, enums.Language.EN),
        "depth_measurement": props.text("depthMeasurement", 2000) or "inches",
        "length_measurement": props.text("lengthMeasurement", 2000) or "miles",
        "temp_measurement": props.choice(
            "tempMeasurement", enums.TempMeasurement.values, "fahrenheit"
        ),
        "hide_name": props.flag("hideName"),
        "promote_trail_hub": props.flag("promoteTrailHUB"),
        "subscription": props.text("subscription", 40) or "free",
        "icon_path": props.text("iconPath", 500) if document.get("iconPath") else "",
        "related_trail_systems": document.get("relatedTrailSystems") or [],
        "hidden_activities": document.get("hiddenActivities"),
    }
    location = document.get("geolocation")
    if isinstance(location, dict):
        fields["lat"], fields["lng"] = location.get("_latitude"), location.get("_longitude")
    if created := moment(document.get("createdOn")):
        fields["created_on"] = created
    problems = [
        Problem(None, document.get("name", ""), key, reason, unit="trail system")
        for key, reason in props.problems
    ]
    return fields, problems


def _keep_source_details(snapshot: LegacySnapshot, parsed: ParsedCollection) -> None:
    """Elevations and creation/change times as the source has them."""
    trail_documents = {d.get("id"): d for d in snapshot.trails if isinstance(d, dict)}
    for trail, _ in parsed.trails:
        document = trail_documents[trail.id]
        elevations = document.get("elevations")
        trail.elevations = elevations if isinstance(elevations, list) and elevations else None
        trail.created_on = moment(document.get("createdOn")) or trail.created_on
        trail.updated_on = moment(document.get("updatedOn")) or trail.updated_on
    for point in parsed.points:
        document = snapshot.points[point.id]
        point.created_on = moment(document.get("createdOn")) or point.created_on
        point.updated_on = moment(document.get("updatedOn")) or point.updated_on


def draft_import(
    snapshot: LegacySnapshot, owner_uid: str | None, *, skip_invalid: bool = False
) -> LegacyImport:
    """Check everything read; InvalidInput lists every problem of the system, its trails,
    points and updates at once (with skip_invalid, only the system's own problems)."""
    fields, system_problems = _system_fields(snapshot.system)
    combined = _combined(snapshot)
    parsed = parse_collection(combined.collection, owner_uid or "", skip_invalid=True)
    parsed.skipped = [combined.located(p) for p in parsed.skipped]
    _keep_source_details(snapshot, parsed)
    updates, update_problems, expired = _updates(snapshot, {t.id for t, _ in parsed.trails})
    parsed.skipped += update_problems
    if system_problems or (parsed.skipped and not skip_invalid):
        raise InvalidInput(system_problems + parsed.skipped)
    draft = draft_trail_system(
        name=snapshot.system["name"],
        owner_uid=owner_uid,
        inactive=Properties(snapshot.system).flag("inactive"),
        parsed=parsed,
        id=snapshot.system_id,
        **fields,
    )
    return LegacyImport(draft, updates, expired)


def _entries(updates) -> list[dict]:
    """Entries of an `updates` object keyed by type; anything else is ignored."""
    if not isinstance(updates, dict):
        return []
    return [
        {**entry, "type": entry.get("type", kind)}
        for kind, listed in updates.items()
        if isinstance(listed, list)
        for entry in listed
        if isinstance(entry, dict)
    ]


def _updates(
    snapshot: LegacySnapshot, trail_ids: set[str]
) -> tuple[list[UpdateDraft], list[Problem], int]:
    """System-level updates from the system document, trail-level ones from the file (an
    update on several trails is listed on each: one update with all of them)."""
    found: dict[str, UpdateDraft] = {}
    problems: list[Problem] = []
    expired = 0
    now = timezone.now()
    sources = [(entry, None) for entry in _entries(snapshot.system.get("updates"))]
    for feature in snapshot.published["features"]:
        properties = (feature or {}).get("properties") or {}
        if "trailId" in properties:
            sources += [(e, properties["trailId"]) for e in _entries(properties.get("updates"))]
    for index, (entry, trail_id) in enumerate(sources):
        key = entry.get("id") if isinstance(entry.get("id"), str) else json.dumps(entry)
        if key not in found:
            try:
                draft = _update(entry, key, now)
            except _BadUpdate as error:
                kind = str(entry.get("type", ""))
                problems += [Problem(index, kind, f, r, "update") for f, r in error.problems]
                found[key] = None
                continue
            if draft is None:
                expired += 1
            found[key] = draft
        if found[key] is not None and trail_id in trail_ids:
            found[key].trail_ids.add(trail_id)
    drafts = [d for d in found.values() if d is not None]
    # A trail-level update whose trails were all skipped has nowhere to go.
    drafts = [d for d in drafts if d.trail_ids or not _is_trail_level(d)]
    taken = set(Update.objects.filter(pk__in=[d.id for d in drafts]).values_list("pk", flat=True))
    problems += [
        Problem(0, d.type, "id", f"{d.id} already exists here.", "update")
        for d in drafts
        if d.id in taken
    ]
    return [d for d in drafts if d.id not in taken], problems, expired


def _is_trail_level(draft: UpdateDraft) -> bool:
    return draft.type == UpdateType.SURFACE_CONDITIONS or bool(draft.trail_ids)


class _BadUpdate(Exception):
    def __init__(self, problems: list[tuple[str, str]]):
        self.problems = problems


def _update(entry: dict, key: str, now: datetime) -> UpdateDraft | None:
    """One update entry; None when it has expired; _BadUpdate lists what is wrong."""
    kind = entry.get("type")
    if kind not in UPDATE_TYPES:
        raise _BadUpdate([("type", f"{kind!r} is not one of {', '.join(UPDATE_TYPES)}.")])
    expiration = moment(entry.get("expirationDate"))
    if expiration is None:
        raise _BadUpdate([("expirationDate", "is missing or not a date.")])
    if expiration <= now:
        return None
    props = Properties(entry)
    if kind == UpdateType.NOTICE:
        fields = {
            "description": props.text("description", 100_000, required=True),
            "severity": props.choice("severity", NoticeSeverity.values, "info"),
            "link_url": props.text("linkUrl", 2000),
        }
    elif kind == UpdateType.SURFACE_CONDITIONS:
        conditions = entry.get("conditions")
        values = [c.get("value") if isinstance(c, dict) else c for c in conditions or []]
        if not values or not all(isinstance(v, str) for v in values):
            props.fail("conditions", "must be a non-empty list of conditions.")
        fields = {"conditions": values}
    else:
        fields = {"last_snow_time": props.text("lastSnowTime", 5)}
        for name, column in SNOW_NUMBERS.items():
            value = entry.get(name)
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int | float)
            ):
                props.fail(name, "must be a number.")
            fields[column] = value
        for name, column in SNOW_DATES.items():
            fields[column] = moment(entry.get(name))
    if props.problems:
        raise _BadUpdate(props.problems)
    update_id = key if isinstance(entry.get("id"), str) else new_id()
    updated_on = moment(entry.get("updatedOn")) or now
    return UpdateDraft(update_id, kind, expiration, updated_on, fields)


# The write side


def write_import(plan: LegacyImport) -> TrailSystem:
    """The system with its trails and points, then its updates, in one transaction."""
    actor = Actor(plan.system.owner_uid or "", Via.IMPORT)
    with transaction.atomic():
        system = write_trail_system(plan.system)
        for draft in plan.updates:
            import_update(
                system=system,
                update_id=draft.id,
                kind=draft.type,
                **draft.fields,
                trail_ids=draft.trail_ids,
                expiration_date=draft.expiration_date,
                updated_on=draft.updated_on,
                actor=actor,
            )
    return system
