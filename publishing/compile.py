"""The compile: a trail system's live rows in, the published FeatureCollection and the
statistics out.

Pure on purpose: no database, no storage and no clock (the caller passes `now`), so every
publishing rule is tested with plain values and the same rows always give the same file.

Incremental: the file is the encoded features of its trails, each keyed by everything it is
made of (`FeatureKey`), joined, then those of its points. A caller that keeps the previous
compile's `encoded_trails` and `encoded_points` passes them back: only trails whose key changed
are encoded again (the others need no geometry), and the points only when any of them changed.
One that also keeps the previous compile's `plan` and knows which trails changed since (the
change log) has only those planned again. The bytes are those of a full compile.
"""

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from datetime import datetime
from itertools import chain
from math import fsum
from typing import NamedTuple

import orjson

from core.dates import iso_ms
from core.names import camel
from trails.activities import CATALOG, activity_entry, describe
from trails.enums import Difficulty, TrailType
from trails.fields import POINT, PUBLISHED, TRAIL
from trails.geometry import lines, published_degrees, published_json
from updates.enums import UpdateType
from updates.types import (
    SNOW_DATES,
    SNOW_DEPTHS,
    SURFACE_CONDITION_CATALOG,
    UPDATE_TYPES,
    in_language,
)

OPEN, CAUTION, CLOSED = "Open", "Caution", "Closed"
STATUSES = (OPEN, CAUTION, CLOSED)
# Activities are listed Open, Caution, Closed, then any other status.
_ACTIVITY_RANK = {OPEN: 0, CAUTION: 1, CLOSED: 2}
_DIFFICULTIES = frozenset(Difficulty.values)
_CATALOG_ORDER = {value: i for i, value in enumerate(CATALOG)}
SNOW_FIELDS = tuple((camel(name), name) for name in SNOW_DEPTHS)
SNOW_DATE_FIELDS = tuple((camel(name), name) for name in SNOW_DATES)
# (property, attribute) of the described fields each feature publishes (trails.fields).
TRAIL_PROPERTIES = TRAIL.keys(PUBLISHED)
POINT_PROPERTIES = POINT.keys(PUBLISHED)


class ActivityRow(NamedTuple):
    """A tuple, so a trail's activities can key a dict."""

    value: str
    status: str
    difficulty: str = ""


@dataclass(slots=True)
class TrailRow:
    """geometry may be None when the caller holds the trail's encoded features (`FeatureKey`).
    version must change whenever any of the trail's own columns does (the database row
    version); the activities and updates are keyed by their content."""

    id: str
    name: str
    geometry: dict | None
    distance: float = 0.0
    description: str = ""
    status: str = "None"
    difficulty: str = Difficulty.NOT_RATED.value
    type: str = TrailType.STANDARD.value
    line_style: str = "Solid"
    hidden: bool = False
    one_way: bool = False
    one_way_reversed: bool = False
    order: int = 0
    categories: list = field(default_factory=list)
    activities: Sequence[ActivityRow] = ()
    version: str = ""


@dataclass(slots=True)
class PointRow:
    id: str
    name: str
    marker_class: str
    lat: float
    lng: float
    status: str = OPEN
    hidden: bool = False
    wait_time: int | None = None
    dining_options: bool | dict | None = None


@dataclass(slots=True)
class UpdateRow:
    id: str
    type: str
    expiration_date: datetime
    updated_on: datetime
    trail_ids: tuple[str, ...] = ()
    all_trails: bool = False
    description: str = ""
    severity: str = ""
    link_url: str = ""
    conditions: list = field(default_factory=list)
    base_depth: float | None = None
    twenty_four_hours: float | None = None
    fourty_eight_hours: float | None = None
    seven_days: float | None = None
    season_total: float | None = None
    last_snow_amount: float | None = None
    upper_elevation_depth: float | None = None
    last_snow_date: datetime | None = None
    last_snow_making_date: datetime | None = None
    last_snow_time: str = ""


@dataclass(slots=True)
class SystemRows:
    """What the compile reads: live trails (with activities), live points, updates."""

    language: str
    trails: list[TrailRow]
    points: list[PointRow]
    updates: list[UpdateRow]


@dataclass(slots=True)
class Statistics:
    """Stored on the trail system; field names are its columns."""

    total_trails: int
    open_trails: int
    caution_trails: int
    closed_trails: int
    total_distance: float
    open_distance: float
    caution_distance: float
    activity_totals: list[dict]
    published_updates: dict[str, list[dict]]

    def columns(self) -> dict:
        """Field by field, without the deep copy of dataclasses.asdict (a large system's
        updates are hundreds of nested dicts)."""
        return {name: getattr(self, name) for name in self.__slots__}


class FeatureKey(NamedTuple):
    """Everything a trail's encoded features are made of."""

    version: str
    status: str
    activities: tuple[ActivityRow, ...]
    updates: bytes
    language: str


class Encoded(NamedTuple):
    key: FeatureKey
    features: bytes


@dataclass(slots=True)
class EncodedPoints:
    """The points' features joined, for the point rows they were encoded from."""

    rows: list[PointRow]
    features: bytes


class MissingGeometry(ValueError):
    """A trail must be encoded but its row came without geometry."""


@dataclass(slots=True)
class Compiled:
    body: bytes
    statistics: Statistics
    # The plan with every trail's features, and the points' features, for the next compile.
    plan: "Plan"
    encoded_points: EncodedPoints

    @property
    def encoded_trails(self) -> dict[str, "Encoded"]:
        """Every trail's encoded features by id."""
        return {p.trail.id: p.reused for p in self.plan.trails if p.reused is not None}

    @property
    def feature_collection(self) -> dict:
        return orjson.loads(self.body)


def resolve_status(status: str, activity_statuses) -> str:
    """A stored status wins; None derives from the activities: any Open, else any Caution,
    else Closed (a trail without activities is Closed)."""
    if status in STATUSES:
        return status
    statuses = set(activity_statuses)
    if OPEN in statuses:
        return OPEN
    if CAUTION in statuses:
        return CAUTION
    return CLOSED


def _activity_entry(activity: ActivityRow, language: str) -> dict:
    return activity_entry(activity.value, activity.status, activity.difficulty, language)


def ordered_activities(activities: Sequence[ActivityRow], language: str) -> list[dict]:
    ranked = sorted(activities, key=lambda a: _ACTIVITY_RANK.get(a.status, 3))
    return [_activity_entry(a, language) for a in ranked]


@dataclass(slots=True)
class _TrailGroup:
    """Trails with the same status and the same activity states: the activity list they
    publish, and the distance of each trail counted in the statistics, by id, with their
    exact sum as partial sums (`_add_exactly`), kept as trails come and go."""

    published: list[dict]
    counted: dict[str, float] = field(default_factory=dict)
    partials: list[float] = field(default_factory=list)

    def count(self, trail_id: str, distance: float) -> None:
        self.counted[trail_id] = distance
        _add_exactly(self.partials, distance)

    def uncount(self, trail_id: str) -> None:
        distance = self.counted.pop(trail_id, None)
        if distance is not None:
            _add_exactly(self.partials, -distance)


def _add_exactly(partials: list[float], value: float) -> None:
    """Add `value` to non-overlapping partial sums whose total is exactly that of the values
    added (Shewchuk's algorithm, which math.fsum runs): fsum of the partials is then fsum of
    the values, bit for bit, for a fraction of the floats to add up on every compile."""
    i = 0
    for other in partials:
        if abs(value) < abs(other):
            value, other = other, value
        high = value + other
        low = other - (high - value)
        if low:
            partials[i] = low
            i += 1
        value = high
    partials[i:] = [value]


def _surface_condition(value: str, language: str) -> dict:
    known = SURFACE_CONDITION_CATALOG.get(value)
    if known:
        return known.entry(language)
    return {"value": value, "text": value, "en": value, "fr": value, "iconClass": ""}


def update_entry(update: UpdateRow, language: str) -> dict:
    """An update as the published data shows it (file and trail system document)."""
    template = UPDATE_TYPES[update.type]
    label = in_language(template.label, language)
    entry: dict = {"id": update.id, "type": update.type, "label": label}
    if update.type == UpdateType.NOTICE:
        entry["description"] = update.description
        entry["severity"] = update.severity or "info"
        entry["linkUrl"] = update.link_url
    elif update.type == UpdateType.SURFACE_CONDITIONS:
        entry["conditions"] = [_surface_condition(c, language) for c in update.conditions]
    else:
        for name, attribute in SNOW_FIELDS:
            entry[name] = getattr(update, attribute)
        for name, attribute in SNOW_DATE_FIELDS:
            entry[name] = iso_ms(getattr(update, attribute))
        entry["lastSnowTime"] = update.last_snow_time
    entry["expirationDate"] = iso_ms(update.expiration_date)
    entry["updatedOn"] = iso_ms(update.updated_on)
    return entry


def is_trail_level(update: UpdateRow) -> bool:
    """Surface conditions always belong to trails; a notice does when it names trails."""
    if update.type == UpdateType.SURFACE_CONDITIONS:
        return True
    return update.type == UpdateType.NOTICE and bool(update.trail_ids or update.all_trails)


def place_updates(
    updates: list[UpdateRow], trail_ids: list[str], language: str, now: datetime
) -> tuple[dict[str, dict[str, list[dict]]], dict[str, list[dict]]]:
    """Active updates, newest first, split into per-trail and system-level lists by type.
    Expired updates and updates of unknown type are left out."""
    by_trail: dict[str, dict[str, list[dict]]] = defaultdict(lambda: defaultdict(list))
    system: dict[str, list[dict]] = defaultdict(list)
    active = [u for u in updates if u.expiration_date > now and u.type in UPDATE_TYPES]
    active.sort(key=lambda u: (u.updated_on, u.id), reverse=True)
    for update in active:
        entry = update_entry(update, language)
        if is_trail_level(update):
            for trail_id in trail_ids if update.all_trails else update.trail_ids:
                by_trail[trail_id][update.type].append(entry)
        else:
            system[update.type].append(entry)
    return {trail_id: dict(by_type) for trail_id, by_type in by_trail.items()}, dict(system)


def trail_line_features(
    trail: TrailRow, status: str, activities: list[dict], updates: dict
) -> list:
    """One LineString feature per part; only the first is shown in lists."""
    properties = {"trailId": trail.id}
    for key, name in TRAIL_PROPERTIES:
        properties[key] = getattr(trail, name)
    properties["status"] = status
    if trail.difficulty not in _DIFFICULTIES:
        properties["difficulty"] = ""
    properties |= {"activities": activities, "showInLists": True, "updates": updates}
    parts = [orjson.Fragment(published_json(orjson.dumps(part))) for part in lines(trail.geometry)]
    features = [_line_feature(parts[0], properties)]
    if len(parts) > 1:
        hidden_from_lists = {**properties, "showInLists": False}
        features.extend(_line_feature(part, hidden_from_lists) for part in parts[1:])
    return features


def _line_feature(coordinates: orjson.Fragment, properties: dict) -> dict:
    return {
        "type": "Feature",
        "geometry": {"type": "LineString", "coordinates": coordinates},
        "properties": properties,
    }


def point_feature(point: PointRow) -> dict:
    """Descriptions and webcam URLs are never published (trails.fields)."""
    properties = {"pointId": point.id}
    for key, name in POINT_PROPERTIES:
        properties[key] = getattr(point, name)
    return {
        "type": "Feature",
        "geometry": {"type": "Point", "coordinates": _published_point(point.lng, point.lat)},
        "properties": properties,
    }


def _published_point(lng: float, lat: float) -> list[float]:
    return [published_degrees(lng), published_degrees(lat)]


class _Totals:
    """Counts and distances by status, for the system or one activity. Distances are summed
    exactly (math.fsum of the groups' exact partial sums), so that the figures do not depend on
    the order the trails were counted in: an incremental compile counts again only the groups
    of the trails it plans."""

    __slots__ = ("counts", "distances", "total")

    def __init__(self) -> None:
        self.total = 0
        self.counts = dict.fromkeys(STATUSES, 0)
        # The groups' partial sums of distances, by status ("": any other status).
        self.distances: dict[str, list[Iterable[float]]] = {s: [] for s in (*STATUSES, "")}

    def add(self, status: str, partials: list[float], trails: int) -> None:
        self.total += trails
        if status in self.counts:
            self.counts[status] += trails
            self.distances[status].append(partials)
        else:
            self.distances[""].append(partials)

    def distance(self, status: str | None = None) -> float:
        groups = self.distances.values() if status is None else [self.distances[status]]
        return fsum(chain.from_iterable(chain.from_iterable(groups)))


def _km(value: float) -> float:
    return round(value, 3)


def _activity_total(value: str, totals: _Totals, language: str) -> dict:
    return {
        **describe(value, language),
        "totalTrails": totals.total,
        "openTrails": totals.counts[OPEN],
        "cautionTrails": totals.counts[CAUTION],
        "closedTrails": totals.counts[CLOSED],
        "totalDistance": _km(totals.distance()),
        "openDistance": _km(totals.distance(OPEN)),
        "cautionDistance": _km(totals.distance(CAUTION)),
        "closedDistance": _km(totals.distance(CLOSED)),
    }


@dataclass(slots=True)
class _PlannedTrail:
    trail: TrailRow
    key: FeatureKey
    group: _TrailGroup
    updates: dict
    # The features: the previous compile's when its key is the same; set once encoded.
    reused: Encoded | None


GroupKey = tuple[str, tuple[ActivityRow, ...]]


@dataclass(slots=True)
class Plan:
    """What a compile will publish, worked out without any geometry; with what the next plan
    needs to plan only what changed."""

    trails: list[_PlannedTrail]
    statistics: Statistics
    points: EncodedPoints | None  # the previous compile's, when the point rows are the same
    language: str
    by_id: dict[str, _PlannedTrail]
    groups: dict[GroupKey, _TrailGroup]
    # A trail's status by its stored status and activities: derived once per distinct pair.
    statuses: dict[GroupKey, str]
    updates: "PlacedUpdates"

    def to_encode(self) -> list[TrailRow]:
        """The trails whose features the previous compile cannot give: their geometry is
        needed."""
        return [p.trail for p in self.trails if p.reused is None]


_NO_UPDATES = orjson.dumps({})
_LIFT = TrailType.LIFT.value


@dataclass(slots=True)
class PlacedUpdates:
    """The active updates placed on the trails and the system (place_updates), each trail's
    encoded, with what they were placed from. The same update rows in the same language place
    the same way until the first active one expires, and, while one names all trails, for the
    same trails: a compile after a trail's status change places nothing again (placing and
    translating a large system's 200 updates was a third of such a compile's CPU)."""

    rows: list[UpdateRow]
    language: str
    placed_on: datetime
    until: datetime | None  # the earliest expiry of the active updates
    trail_ids: list[str] | None  # the trails placed on, when an active update names all trails
    by_trail: dict[str, dict[str, list[dict]]]
    system: dict[str, list[dict]]
    encoded: dict[str, bytes]  # each trail's updates, encoded, for trails with any

    def hold_for(self, rows: SystemRows, now: datetime) -> bool:
        return (
            self.language == rows.language
            and self.placed_on <= now
            and (self.until is None or now < self.until)
            and (self.trail_ids is None or self.trail_ids == [t.id for t in rows.trails])
            and self.rows == rows.updates
        )


def _place(rows: SystemRows, now: datetime, previous: PlacedUpdates | None) -> PlacedUpdates:
    """The previous placement when it holds, else the updates placed anew."""
    if previous is not None and previous.hold_for(rows, now):
        return previous
    trail_ids = [t.id for t in rows.trails]
    by_trail, system = place_updates(rows.updates, trail_ids, rows.language, now)
    active = [u for u in rows.updates if u.expiration_date > now and u.type in UPDATE_TYPES]
    return PlacedUpdates(
        rows.updates,
        rows.language,
        now,
        min((u.expiration_date for u in active), default=None),
        trail_ids if any(u.all_trails and is_trail_level(u) for u in active) else None,
        by_trail,
        system,
        {t: orjson.dumps(updates) for t, updates in by_trail.items()},
    )


def plan_system(
    rows: SystemRows,
    now: datetime,
    encoded: Mapping[str, Encoded] | None = None,
    encoded_points: EncodedPoints | None = None,
    *,
    previous: Plan | None = None,
    changed: AbstractSet[str] | None = None,
) -> Plan:
    """Each trail's status, activities, updates and key, and the statistics; `encoded`: a
    previous compile's `encoded_trails`, whose features are reused where the key matches;
    `encoded_points`: its `encoded_points`, reused when the point rows are equal (comparing
    a thousand rows costs a third of encoding them).

    `previous` with `changed`: the previous compile's plan and every trail whose row or
    activities changed since (added and removed ones too). Only those trails, and those whose
    updates changed, are planned again; the others keep their plan and features. `previous`
    alone: its placement of the updates is reused while it holds (PlacedUpdates)."""
    language = rows.language
    placed = _place(rows, now, previous.updates if previous is not None else None)
    updates_by_trail, encoded_updates = placed.by_trail, placed.encoded
    if previous is not None and changed is not None and previous.language == language:
        dirty = set(changed)
        if placed is not previous.updates:
            old = previous.updates.encoded
            dirty.update(
                t
                for t in old.keys() | encoded_updates.keys()
                if old.get(t) != encoded_updates.get(t)
            )
        by_id = dict(previous.by_id)
        groups = {
            k: _TrailGroup(g.published, dict(g.counted), list(g.partials))
            for k, g in previous.groups.items()
        }
        statuses = dict(previous.statuses)
        before: dict[str, _PlannedTrail] = {}
        for trail_id in dirty:
            if (planned := by_id.pop(trail_id, None)) is not None:
                before[trail_id] = planned
                groups[planned.key.status, planned.key.activities].uncount(trail_id)
        to_plan = [t for t in rows.trails if t.id not in by_id]
    else:
        by_id, groups, statuses, before = {}, {}, {}, {}
        to_plan = rows.trails
    encoded = encoded or {}
    for trail in to_plan:
        activities = tuple(trail.activities)
        status = statuses.get((trail.status, activities))
        if status is None:
            status = resolve_status(trail.status, (a.status for a in activities))
            statuses[trail.status, activities] = status
        group = groups.get((status, activities))
        if group is None:
            group = groups[status, activities] = _TrailGroup(
                ordered_activities(activities, language)
            )
        updates = updates_by_trail.get(trail.id) or {}
        # A plain tuple compares equal to the kept FeatureKey and is cheaper to build; most
        # trails of a large system are reused as they were.
        values = (
            trail.version,
            status,
            activities,
            encoded_updates.get(trail.id, _NO_UPDATES),
            language,
        )
        kept = encoded.get(trail.id) or getattr(before.get(trail.id), "reused", None)
        if kept is not None and kept.key == values:
            by_id[trail.id] = _PlannedTrail(trail, kept.key, group, updates, kept)
        else:
            by_id[trail.id] = _PlannedTrail(trail, FeatureKey._make(values), group, updates, None)
        if trail.type != _LIFT and not trail.hidden:  # lifts and hidden: map only
            group.count(trail.id, trail.distance)
    if len(by_id) != len(rows.trails):  # trails gone that `changed` did not name
        for trail_id in by_id.keys() - {t.id for t in rows.trails}:
            planned = by_id.pop(trail_id)
            groups[planned.key.status, planned.key.activities].uncount(trail_id)
    if encoded_points is not None and encoded_points.rows != rows.points:
        encoded_points = None
    return Plan(
        [by_id[t.id] for t in rows.trails],
        _statistics(groups, placed.system, language),
        encoded_points,
        language,
        by_id,
        groups,
        statuses,
        placed,
    )


def _statistics(
    groups: dict[GroupKey, _TrailGroup],
    system_updates: dict[str, list[dict]],
    language: str,
) -> Statistics:
    system_totals = _Totals()
    activity_totals: dict[str, _Totals] = defaultdict(_Totals)
    for (status, activities), group in groups.items():
        if not group.counted:
            continue  # lifts and hidden trails only
        partials, trails = group.partials, len(group.counted)
        system_totals.add(status, partials, trails)
        for activity in activities:
            activity_totals[activity.value].add(activity.status, partials, trails)
    ordered_values = sorted(activity_totals, key=lambda v: (_CATALOG_ORDER.get(v, len(CATALOG)), v))
    return Statistics(
        total_trails=system_totals.total,
        open_trails=system_totals.counts[OPEN],
        caution_trails=system_totals.counts[CAUTION],
        closed_trails=system_totals.counts[CLOSED],
        total_distance=_km(system_totals.distance()),
        open_distance=_km(system_totals.distance(OPEN)),
        caution_distance=_km(system_totals.distance(CAUTION)),
        activity_totals=[_activity_total(v, activity_totals[v], language) for v in ordered_values],
        published_updates=system_updates,
    )


def _encode_trail(planned: _PlannedTrail) -> bytes:
    trail = planned.trail
    if trail.geometry is None:
        raise MissingGeometry(f"trail {trail.id} must be encoded but has no geometry")
    features = trail_line_features(
        trail, planned.key.status, planned.group.published, planned.updates
    )
    return b",".join(orjson.dumps(f) for f in features)


def compile_rows(rows: SystemRows, now: datetime, plan: Plan | None = None) -> Compiled:
    """The published FeatureCollection (trails in the given order, then points) and the
    statistics of one trail system. `plan`: plan_system(rows, now, ...) when the caller has
    it, with the previous compile's features to reuse; its trails keep their features, for
    the next plan."""
    plan = plan or plan_system(rows, now)
    parts: list[bytes] = []
    for planned in plan.trails:
        if planned.reused is None:
            planned.reused = Encoded(planned.key, _encode_trail(planned))
        parts.append(planned.reused.features)
    points = plan.points or EncodedPoints(
        rows.points, b",".join(orjson.dumps(point_feature(p)) for p in rows.points)
    )
    if points.features:
        parts.append(points.features)
    return Compiled(_feature_collection(parts), plan.statistics, plan, points)


_OPEN = b'{"type":"FeatureCollection","features":['
_CLOSE = b"]}"


def _feature_collection(parts: list[bytes]) -> bytes:
    """The encoded features joined into one FeatureCollection with a single copy of the
    megabytes (concatenating around the join would copy them twice more)."""
    if not parts:
        return _OPEN + _CLOSE
    parts[0] = _OPEN + parts[0]
    parts[-1] += _CLOSE
    return b",".join(parts)


def all_systems_collection(systems: list[dict]) -> dict:
    """The legacy all-systems FeatureCollection: one Point per system given that has a
    location (its own or its trails' centre); one without is left out until it has one, as
    embeds place every feature on a map. hiddenActivities only when set."""
    features = []
    for system in systems:
        if system["lat"] is None or system["lng"] is None:
            continue
        properties = {
            "name": system["name"],
            "tsId": system["id"],
            "openTrails": system["open_trails"],
            "cautionTrails": system["caution_trails"],
            "closedTrails": system["closed_trails"],
            "activities": system["activity_totals"],
        }
        if system["hidden_activities"] is not None:
            properties["hiddenActivities"] = system["hidden_activities"]
        features.append(
            {
                "type": "Feature",
                "geometry": {
                    "type": "Point",
                    "coordinates": _published_point(system["lng"], system["lat"]),
                },
                "properties": properties,
            }
        )
    return {"type": "FeatureCollection", "features": features}
