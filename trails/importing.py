"""Create a trail system, optionally importing a FeatureCollection in the published-file format.

The published file is what an old system exposes, so importing it migrates the system: trail
and point ids are kept, several LineString features with one trailId become one
MultiLineString trail, and everything is validated before anything is written, so a bad file
imports nothing. Derived properties (distance, showInLists, updates, activity labels) are
ignored: the compile recomputes them.
"""

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError

from core.actors import Actor, Via
from core.ids import ID_MAX_LENGTH, new_id
from trails import enums, services
from trails.activities import get_activity
from trails.geometry import GeometryError, lines
from trails.geometry import validate as validate_line
from trails.models import Membership, Point, Trail, TrailActivity, TrailSystem

ROLE_PATTERN = re.compile(r"^[A-Za-z]+( [A-Za-z]+)*$")
ROLE_MAX_LENGTH = Membership._meta.get_field("role").max_length
User = get_user_model()  # the accounts app sits above trails; Django resolves it
UID_MAX_LENGTH = User._meta.get_field("uid").max_length
TIER_MAX_LENGTH = TrailSystem._meta.get_field("subscription").max_length


class InvalidInput(ValueError):
    """Bad input to create a system; `problems` lists every reason (feature index first)."""

    def __init__(self, problems: Sequence[str]):
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


class FeatureError(ValueError):
    """One feature cannot be imported."""


def validate_uid(uid: str) -> str:
    uid = uid.strip()
    if not uid or len(uid) > UID_MAX_LENGTH or any(c.isspace() for c in uid):
        raise InvalidInput([f"Invalid uid {uid!r}: 1 to {UID_MAX_LENGTH} characters, no spaces."])
    return uid


def validate_role(role: str) -> str:
    """Administrator, Trustee (any case), or another name of letters and single spaces."""
    role = role.strip()
    for known in enums.Role.values:
        if role.lower() == known.lower():
            return known
    if not ROLE_PATTERN.match(role) or len(role) > ROLE_MAX_LENGTH:
        raise InvalidInput(
            [
                f"Invalid role {role!r}: use Administrator, Trustee, or another name of letters "
                f"and spaces (at most {ROLE_MAX_LENGTH} characters)."
            ]
        )
    return role


def parse_member(spec: str) -> tuple[str, str]:
    """`UID=ROLE` -> (uid, role)."""
    uid, sep, role = spec.partition("=")
    if not sep:
        raise InvalidInput([f"Invalid member {spec!r}: expected UID=ROLE."])
    return validate_uid(uid), validate_role(role)


def read_collection(path: str | Path) -> dict:
    """The parsed JSON of a file, or InvalidInput saying why it cannot be read."""
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except OSError as error:
        raise InvalidInput([f"Cannot read {path}: {error.strerror or error}."]) from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise InvalidInput([f"{path} is not valid JSON: {error}."]) from None


class _Properties:
    """Typed reads of one feature's properties; each failure is a FeatureError."""

    def __init__(self, properties: dict):
        self.properties = properties

    def text(self, key: str, max_length: int, *, required: bool = False) -> str:
        value = self.properties.get(key)
        if value is None or (value == "" and not required):
            if required:
                raise FeatureError(f"{key} is required.")
            return ""
        if not isinstance(value, str) or (required and not value.strip()):
            raise FeatureError(f"{key} must be a {'non-empty ' if required else ''}string.")
        if len(value) > max_length:
            raise FeatureError(f"{key} is longer than {max_length} characters.")
        return value

    def choice(self, key: str, choices: Iterable[str], default: str | None) -> str:
        """The value, which must be one of choices; default None makes the key required."""
        value = self.properties.get(key)
        if value is None:
            if default is None:
                raise FeatureError(f"{key} is required.")
            return default
        allowed = list(choices)
        if value not in allowed:
            raise FeatureError(f"{key} {value!r} is not one of {', '.join(allowed)}.")
        return value

    def flag(self, key: str) -> bool:
        value = self.properties.get(key, False)
        if value is None:
            return False
        if not isinstance(value, bool):
            raise FeatureError(f"{key} must be true or false.")
        return value

    def integer(self, key: str, default: int | None, *, minimum: int | None = None) -> int | None:
        value = self.properties.get(key)
        if value is None:
            return default
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if not isinstance(value, int) or isinstance(value, bool):
            raise FeatureError(f"{key} must be an integer.")
        if minimum is not None and value < minimum:
            raise FeatureError(f"{key} must be at least {minimum}.")
        return value

    def identifier(self, key: str) -> str:
        value = self.properties.get(key)
        if value is None:
            return new_id()
        if not isinstance(value, str) or not value or len(value) > ID_MAX_LENGTH:
            raise FeatureError(f"{key} must be a string of 1 to {ID_MAX_LENGTH} characters.")
        return value


def _categories(props: _Properties) -> list[str]:
    value = props.properties.get("categories")
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
        raise FeatureError("categories must be a list of strings.")
    return value


def _activities(props: _Properties) -> list[TrailActivity]:
    value = props.properties.get("activities")
    if value is None:
        return []
    if not isinstance(value, list):
        raise FeatureError("activities must be a list of {value, status, difficulty?}.")
    activities: list[TrailActivity] = []
    for position, entry in enumerate(value):
        if not isinstance(entry, dict):
            raise FeatureError(f"activities[{position}] must be an object.")
        entry_props = _Properties(entry)
        key = entry.get("value")
        try:
            get_activity(key)
        except ValidationError as error:
            raise FeatureError(f"activities[{position}]: {error.message}") from None
        if any(a.value == key for a in activities):
            raise FeatureError(f"activities[{position}]: {key} is listed twice.")
        try:
            status = entry_props.choice("status", enums.ActivityStatus.values, "Open")
            difficulty = entry_props.choice("difficulty", [*enums.Difficulty.values, ""], "")
        except FeatureError as error:
            raise FeatureError(f"activities[{position}]: {error}") from None
        activities.append(
            TrailActivity(value=key, status=status, difficulty=difficulty, position=position)
        )
    return activities


def _trail(props: _Properties, trail_id: str, by_uid: str) -> Trail:
    difficulty = props.choice("difficulty", [*enums.Difficulty.values, ""], "") or "notRated"
    return Trail(
        id=trail_id,
        name=props.text("name", 200, required=True),
        description=props.text("description", 5000),
        status=props.choice("status", enums.TrailStatus.values, enums.TrailStatus.NONE),
        difficulty=difficulty,
        type=props.choice("type", enums.TrailType.values, enums.TrailType.STANDARD),
        line_style=props.choice("lineStyle", enums.LineStyle.values, enums.LineStyle.SOLID),
        hidden=props.flag("hidden"),
        one_way=props.flag("oneWay"),
        one_way_reversed=props.flag("oneWayReversed"),
        order=props.integer("order", 0),
        categories=_categories(props),
        created_by=by_uid,
        updated_by=by_uid,
    )


def _point(props: _Properties, coordinates, by_uid: str) -> Point:
    if (
        not isinstance(coordinates, list)
        or len(coordinates) not in (2, 3)
        or not all(isinstance(n, int | float) and not isinstance(n, bool) for n in coordinates)
    ):
        raise FeatureError("Point coordinates must be [lng, lat].")
    lng, lat = coordinates[0], coordinates[1]
    if not -180 <= lng <= 180 or not -90 <= lat <= 90:
        raise FeatureError("Point coordinates are out of range (lng -180..180, lat -90..90).")
    dining = props.properties.get("diningOptions")
    if dining is not None and not isinstance(dining, bool | dict):
        raise FeatureError("diningOptions must be true, false or an object.")
    return Point(
        id=props.identifier("pointId"),
        name=props.text("name", 200, required=True),
        description=props.text("description", 100_000),
        marker_class=props.choice("markerClass", enums.MARKER_CLASSES, None),
        status=props.choice("status", enums.PointStatus.values, enums.PointStatus.OPEN),
        hidden=props.flag("hidden"),
        wait_time=props.integer("waitTime", None, minimum=0),
        web_cam_url=props.text("webCamUrl", 2000),
        dining_options=dining,
        lat=float(lat),
        lng=float(lng),
        created_by=by_uid,
        updated_by=by_uid,
    )


@dataclass
class _TrailDraft:
    index: int
    trail: Trail
    activities: list[TrailActivity]
    lines: list[list[list[float]]] = field(default_factory=list)


@dataclass
class ParsedCollection:
    trails: list[tuple[Trail, list[TrailActivity]]]
    points: list[Point]

    def centre(self) -> tuple[float, float] | None:
        """(lat, lng) of the centre of the bounding box of everything imported."""
        positions = [p for trail, _ in self.trails for line in lines(trail.geometry) for p in line]
        positions += [(point.lng, point.lat) for point in self.points]
        if not positions:
            return None
        lngs, lats = [p[0] for p in positions], [p[1] for p in positions]
        return (min(lats) + max(lats)) / 2, (min(lngs) + max(lngs)) / 2


def parse_collection(collection, by_uid: str = "") -> ParsedCollection:
    """Validate every feature; InvalidInput lists each bad one by index and reason."""
    if (
        not isinstance(collection, dict)
        or collection.get("type") != "FeatureCollection"
        or not isinstance(collection.get("features"), list)
    ):
        raise InvalidInput(["Not a GeoJSON FeatureCollection with a features list."])
    drafts: dict[str, _TrailDraft] = {}
    points: dict[str, tuple[int, Point]] = {}
    problems: list[tuple[int, str]] = []
    for index, feature in enumerate(collection["features"]):
        try:
            _parse_feature(feature, index, drafts, points, by_uid)
        except FeatureError as error:
            problems.append((index, str(error)))
    first_index = {trail_id: d.index for trail_id, d in drafts.items()}
    first_index |= {point_id: i for point_id, (i, _) in points.items()}
    taken = list(Trail.all_objects.filter(pk__in=drafts).values_list("pk", flat=True))
    taken += Point.all_objects.filter(pk__in=points).values_list("pk", flat=True)
    problems += [(first_index[pk], f"id {pk} already exists.") for pk in taken]
    if problems:
        raise InvalidInput([f"feature {index}: {reason}" for index, reason in sorted(problems)])
    trails = []
    for draft in drafts.values():
        geometry = (
            {"type": "LineString", "coordinates": draft.lines[0]}
            if len(draft.lines) == 1
            else {"type": "MultiLineString", "coordinates": draft.lines}
        )
        draft.trail.apply_geometry(geometry)
        trails.append((draft.trail, draft.activities))
    return ParsedCollection(trails, [point for _, point in points.values()])


def _parse_feature(feature, index: int, drafts, points, by_uid: str) -> None:
    if not isinstance(feature, dict) or feature.get("type") != "Feature":
        raise FeatureError("not a GeoJSON Feature.")
    geometry = feature.get("geometry")
    properties = feature.get("properties") or {}
    if not isinstance(geometry, dict):
        raise FeatureError("has no geometry.")
    if not isinstance(properties, dict):
        raise FeatureError("properties must be an object.")
    props = _Properties(properties)
    kind = geometry.get("type")
    if kind == "Point":
        point = _point(props, geometry.get("coordinates"), by_uid)
        if point.id in points:
            raise FeatureError(f"pointId {point.id} is used by feature {points[point.id][0]}.")
        points[point.id] = (index, point)
        return
    if kind not in ("LineString", "MultiLineString"):
        raise FeatureError(f"geometry type {kind!r} cannot be imported (Point or LineString).")
    try:
        parts = lines(validate_line(geometry))
    except GeometryError as error:
        raise FeatureError(f"invalid geometry: {error}") from None
    trail_id = props.identifier("trailId")
    if trail_id not in drafts:
        trail = _trail(props, trail_id, by_uid)
        drafts[trail_id] = _TrailDraft(index, trail, _activities(props))
    drafts[trail_id].lines.extend(parts)


def create_trail_system(
    *,
    name: str,
    owner_uid: str,
    members: Sequence[tuple[str, str]] = (),
    tier: str = "",
    inactive: bool = False,
    collection: dict | None = None,
    **fields,
) -> TrailSystem:
    """Create a system with its owner, members and (optionally) imported trails and points,
    all in one transaction, and queue its first compile."""
    name = name.strip()
    if not name or len(name) > 2000:
        raise InvalidInput(["The name must be 1 to 2000 characters."])
    owner_uid = validate_uid(owner_uid)
    uids = [uid for uid, _ in members]
    duplicates = sorted({uid for uid in uids if uids.count(uid) > 1})
    if duplicates:
        raise InvalidInput([f"Member {uid} is listed more than once." for uid in duplicates])
    tier = tier.strip()
    if len(tier) > TIER_MAX_LENGTH:
        raise InvalidInput([f"The tier is longer than {TIER_MAX_LENGTH} characters."])
    parsed = parse_collection(collection, owner_uid) if collection is not None else None
    if parsed and (centre := parsed.centre()):
        fields.setdefault("lat", centre[0])
        fields.setdefault("lng", centre[1])
    if tier:
        fields["subscription"] = tier

    return services.create_trail_system(
        name=name,
        owner_uid=owner_uid,
        actor=Actor(owner_uid, Via.IMPORT),
        members=members,
        fields={"inactive": inactive, **fields},
        trails=parsed.trails if parsed else (),
        points=parsed.points if parsed else (),
    )
