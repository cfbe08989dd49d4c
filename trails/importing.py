"""Create a trail system, optionally importing a FeatureCollection in the published-file format.

The published file is what an old system exposes, so importing it migrates the system: trail
and point ids are kept, several LineString features with one trailId become one
MultiLineString trail, and everything is validated before anything is written, so a bad file
imports nothing. Derived properties (distance, showInLists, updates, activity labels) are
ignored: the compile recomputes them.
"""

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError

from core.actors import Actor, Via
from core.ids import ID_MAX_LENGTH, new_id
from core.limits import TEXT_LIMIT, TRAIL_ORDER_MAX, WAIT_TIME_MAX, categories_problem
from core.links import is_http_url
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


@dataclass(frozen=True)
class Problem:
    """One reason why one feature (or segment, or document: the `unit`) cannot be imported:
    where (index, name), which field, why."""

    index: int | None  # None for a problem of the one `unit` there is (a trail system)
    name: str
    field: str
    reason: str
    unit: str = "feature"

    def __str__(self) -> str:
        where = self.unit if self.index is None else f"{self.unit} {self.index}"
        if self.name:
            where += f" ({self.name})"
        return f"{where}: {self.field} {self.reason}" if self.field else f"{where}: {self.reason}"


class InvalidInput(ValueError):
    """Bad input to an import; `problems` lists every reason, each feature's by index."""

    def __init__(self, problems: Sequence[Problem | str]):
        self.problems = list(problems)
        super().__init__("\n".join(str(problem) for problem in self.problems))


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


class Properties:
    """Typed reads of one feature's properties; each bad field is recorded in `problems`
    and read as its default, so one pass finds every problem of the feature."""

    def __init__(self, properties: dict, prefix: str = ""):
        self.properties = properties
        self.prefix = prefix
        self.problems: list[tuple[str, str]] = []

    def fail(self, key: str, reason: str, fallback=None):
        self.problems.append((self.prefix + key, reason))
        return fallback

    def text(self, key: str, max_length: int, *, required: bool = False) -> str:
        value = self.properties.get(key)
        if value is None or (value == "" and not required):
            return self.fail(key, "is required.", "") if required else ""
        if not isinstance(value, str) or (required and not value.strip()):
            return self.fail(key, f"must be a {'non-empty ' if required else ''}string.", "")
        if len(value) > max_length:
            return self.fail(key, f"is longer than {max_length} characters.", "")
        return value

    def link(self, key: str) -> str:
        """A URL shown to people: http or https only."""
        value = self.text(key, TEXT_LIMIT)
        if value and not is_http_url(value):
            return self.fail(key, "must be an http:// or https:// URL.", "")
        return value

    def choice(self, key: str, choices: Iterable[str], default: str | None) -> str:
        """The value, which must be one of choices; default None makes the key required."""
        value = self.properties.get(key)
        if value is None:
            return self.fail(key, "is required.", "") if default is None else default
        allowed = list(choices)
        if value not in allowed:
            shown = ", ".join(choice for choice in allowed if choice)
            return self.fail(key, f"{value!r} is not one of {shown}.", default or "")
        return value

    def flag(self, key: str) -> bool:
        value = self.properties.get(key, False)
        if value is None:
            return False
        if not isinstance(value, bool):
            return self.fail(key, "must be true or false.", False)
        return value

    def integer(
        self,
        key: str,
        default: int | None,
        *,
        minimum: int | None = None,
        maximum: int | None = None,
    ) -> int | None:
        value = self.properties.get(key)
        if value is None:
            return default
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if not isinstance(value, int) or isinstance(value, bool):
            return self.fail(key, "must be an integer.", default)
        if minimum is not None and value < minimum:
            return self.fail(key, f"must be at least {minimum}.", default)
        if maximum is not None and value > maximum:
            return self.fail(key, f"must be at most {maximum}.", default)
        return value

    def identifier(self, key: str, fresh: dict[str, str] | None) -> str:
        """The feature's id, or a new one when it has none; with `fresh` (a map kept across
        features) every id is replaced by a new one, the same for the same old id."""
        value = self.properties.get(key)
        if value is None:
            return new_id()
        if not isinstance(value, str) or not value or len(value) > ID_MAX_LENGTH:
            return self.fail(key, f"must be a string of 1 to {ID_MAX_LENGTH} characters.", "")
        if fresh is not None:
            return fresh.setdefault(value, new_id())
        return value

    def categories(self) -> list[str]:
        value = self.properties.get("categories")
        if value is None:
            return []
        if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
            return self.fail("categories", "must be a list of strings.", [])
        problem = categories_problem(value)
        return self.fail("categories", problem, []) if problem else value


def _activities(props: Properties) -> list[TrailActivity]:
    value = props.properties.get("activities")
    if value is None:
        return []
    if not isinstance(value, list):
        return props.fail("activities", "must be a list of {value, status, difficulty?}.", [])
    activities: list[TrailActivity] = []
    for position, entry in enumerate(value):
        where = f"activities[{position}]"
        if not isinstance(entry, dict):
            props.fail(where, "must be an object.")
            continue
        entry_props = Properties(entry, prefix=f"{props.prefix}{where}.")
        key = entry.get("value")
        try:
            get_activity(key)
        except ValidationError as error:
            props.fail(f"{where}.value", error.message)
        if any(a.value == key for a in activities):
            props.fail(f"{where}.value", f"{key} is listed twice.")
        status = entry_props.choice("status", enums.ActivityStatus.values, "Open")
        difficulty = entry_props.choice("difficulty", [*enums.Difficulty.values, ""], "")
        props.problems += entry_props.problems
        activities.append(
            TrailActivity(value=key, status=status, difficulty=difficulty, position=position)
        )
    return activities


def _trail(props: Properties, trail_id: str, by_uid: str) -> Trail:
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
        order=props.integer("order", 0, minimum=-TRAIL_ORDER_MAX, maximum=TRAIL_ORDER_MAX),
        categories=props.categories(),
        created_by=by_uid,
        updated_by=by_uid,
    )


def _coordinates(props: Properties, coordinates) -> tuple[float, float]:
    """(lng, lat) of a Point geometry."""
    if (
        not isinstance(coordinates, list)
        or len(coordinates) not in (2, 3)
        or not all(isinstance(n, int | float) and not isinstance(n, bool) for n in coordinates)
    ):
        return props.fail("geometry", "Point coordinates must be [lng, lat].", (0.0, 0.0))
    lng, lat = coordinates[0], coordinates[1]
    if not -180 <= lng <= 180 or not -90 <= lat <= 90:
        props.fail("geometry", "Point coordinates are out of range (lng -180..180, lat -90..90).")
    return float(lng), float(lat)


def _point(props: Properties, point_id: str, coordinates, by_uid: str) -> Point:
    lng, lat = _coordinates(props, coordinates)
    dining = props.properties.get("diningOptions")
    if dining is not None and not isinstance(dining, bool | dict):
        dining = props.fail("diningOptions", "must be true, false or an object.")
    return Point(
        id=point_id,
        name=props.text("name", 200, required=True),
        description=props.text("description", 100_000),
        marker_class=props.choice("markerClass", enums.MARKER_CLASSES, None),
        status=props.choice("status", enums.PointStatus.values, enums.PointStatus.OPEN),
        hidden=props.flag("hidden"),
        wait_time=props.integer("waitTime", None, minimum=0, maximum=WAIT_TIME_MAX),
        web_cam_url=props.link("webCamUrl"),
        dining_options=dining,
        lat=lat,
        lng=lng,
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
    """The good features of a file, ready to write; `skipped` lists the bad ones (only
    with skip_invalid: otherwise a bad feature raises InvalidInput)."""

    trails: list[tuple[Trail, list[TrailActivity]]]
    points: list[Point]
    skipped: list[Problem] = field(default_factory=list)
    # One line for the features whose ids are already here (a re-import), however many.
    taken: str = ""

    def centre(self) -> tuple[float, float] | None:
        """(lat, lng) of the centre of the bounding box of everything imported."""
        positions = [p for trail, _ in self.trails for line in lines(trail.geometry) for p in line]
        positions += [(point.lng, point.lat) for point in self.points]
        if not positions:
            return None
        lngs, lats = [p[0] for p in positions], [p[1] for p in positions]
        return (min(lats) + max(lats)) / 2, (min(lngs) + max(lngs)) / 2

    def summary(self, verb: str = "Imported") -> str:
        """What will be (or was) imported and what was left out, for a person to read."""
        counts = f"{len(self.trails)} trails and {len(self.points)} points"
        taken = f"\n  skipped {self.taken}" if self.taken else ""
        if not self.skipped:
            return f"{verb} {counts}.{taken}"
        indexes = {problem.index for problem in self.skipped}
        listed = "\n".join(f"  {problem}" for problem in self.skipped)
        return f"{verb} {counts}; skipped {len(indexes)} invalid features:\n{listed}{taken}"


def _looks_like_point(properties: dict) -> bool:
    return "pointId" in properties or "markerClass" in properties


class _CollectionParser:
    """Reads features one by one, keeping trails (several features per trailId), points and
    every problem found."""

    def __init__(self, by_uid: str, new_ids: bool):
        self.by_uid = by_uid
        self.fresh: dict[str, str] | None = {} if new_ids else None
        self.drafts: dict[str, _TrailDraft] = {}
        self.points: dict[str, tuple[int, Point]] = {}
        self.problems: list[Problem] = []
        self.taken = ""

    def feature(self, index: int, feature) -> None:
        if not isinstance(feature, dict) or feature.get("type") != "Feature":
            self.problems.append(Problem(index, "", "", "not a GeoJSON Feature."))
            return
        properties = feature.get("properties") or {}
        if not isinstance(properties, dict):
            self.problems.append(Problem(index, "", "properties", "must be an object."))
            return
        name = properties.get("name")
        props = Properties(properties)
        geometry = feature.get("geometry")
        kind = geometry.get("type") if isinstance(geometry, dict) else None
        if kind not in ("Point", "LineString", "MultiLineString"):
            props.fail(
                "geometry",
                "is missing." if geometry is None
                else f"type {kind!r} cannot be imported (Point or LineString).",
            )  # fmt: skip
            geometry = None
        # Without a usable geometry the properties still say what the feature is meant to be,
        # so their problems are reported too.
        if kind == "Point" or (geometry is None and _looks_like_point(properties)):
            self._point(index, props, geometry)
        else:
            self._trail(index, props, geometry)
        label = name.strip()[:80] if isinstance(name, str) else ""
        self.problems += [Problem(index, label, key, reason) for key, reason in props.problems]

    def _point(self, index: int, props: Properties, geometry: dict | None) -> None:
        coordinates = geometry.get("coordinates") if geometry else [0, 0]
        point = _point(props, props.identifier("pointId", self.fresh), coordinates, self.by_uid)
        if point.id in self.points:
            props.fail("pointId", f"{point.id} is used by feature {self.points[point.id][0]}.")
        if not props.problems:
            self.points[point.id] = (index, point)

    def _trail(self, index: int, props: Properties, geometry: dict | None) -> None:
        try:
            parts = lines(validate_line(geometry)) if geometry else []
        except GeometryError as error:
            parts = props.fail("geometry", str(error), [])
        trail_id = props.identifier("trailId", self.fresh)
        trail = _trail(props, trail_id, self.by_uid)
        activities = _activities(props)
        if props.problems:
            return
        if trail_id not in self.drafts:
            self.drafts[trail_id] = _TrailDraft(index, trail, activities)
        self.drafts[trail_id].lines.extend(parts)

    def check_taken(self) -> None:
        """Ids kept from the file must be new to this database. Meeting them is a re-import, so
        they are counted in one line with the way on, not listed feature by feature."""
        trails = sorted(Trail.all_objects.filter(pk__in=self.drafts).values_list("pk", flat=True))
        points = sorted(Point.all_objects.filter(pk__in=self.points).values_list("pk", flat=True))
        if not trails and not points:
            return
        for pk in trails:
            del self.drafts[pk]
        for pk in points:
            del self.points[pk]
        ids = [*trails, *points]
        more = f" and {len(ids) - 5} more" if len(ids) > 5 else ""
        self.taken = (
            f"{_count(len(trails), 'trail')} and {_count(len(points), 'point')} of this file "
            f"already exist here ({', '.join(ids[:5])}{more}): --new-ids imports a copy."
        )

    def result(self) -> ParsedCollection:
        trails = []
        for draft in self.drafts.values():
            geometry = (
                {"type": "LineString", "coordinates": draft.lines[0]}
                if len(draft.lines) == 1
                else {"type": "MultiLineString", "coordinates": draft.lines}
            )
            draft.trail.apply_geometry(geometry)
            trails.append((draft.trail, draft.activities))
        points = [point for _, point in self.points.values()]
        skipped = sorted(self.problems, key=lambda problem: problem.index)
        return ParsedCollection(trails, points, skipped, self.taken)


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def parse_collection(
    collection,
    by_uid: str = "",
    *,
    skip_invalid: bool = False,
    new_ids: bool = False,
    progress: Callable[[Iterable], Iterable] = iter,
) -> ParsedCollection:
    """Validate every feature. A bad feature raises InvalidInput listing every problem of
    every feature, unless skip_invalid, which keeps the good ones and lists the rest.
    new_ids gives every trail and point a fresh id (a copy next to the original)."""
    if (
        not isinstance(collection, dict)
        or collection.get("type") != "FeatureCollection"
        or not isinstance(collection.get("features"), list)
    ):
        raise InvalidInput(["Not a GeoJSON FeatureCollection with a features list."])
    parser = _CollectionParser(by_uid, new_ids)
    for index, feature in enumerate(progress(collection["features"])):
        parser.feature(index, feature)
    parser.check_taken()
    parsed = parser.result()
    if (parsed.skipped or parsed.taken) and not skip_invalid:
        raise InvalidInput([*parsed.skipped, *([parsed.taken] if parsed.taken else [])])
    return parsed


@dataclass
class SystemDraft:
    """A validated trail system to create: everything is checked before anything is written."""

    name: str
    owner_uid: str | None
    members: list[tuple[str, str]]
    inactive: bool
    fields: dict
    parsed: ParsedCollection | None


def draft_trail_system(
    *,
    name: str,
    owner_uid: str | None,
    members: Sequence[tuple[str, str]] = (),
    tier: str = "",
    inactive: bool = False,
    collection: dict | None = None,
    parsed: ParsedCollection | None = None,
    **fields,
) -> SystemDraft:
    """Check a system's details; `collection` is parsed here unless already `parsed`.
    A system without an owner (owner_uid None) is managed by its members and super admins."""
    name = name.strip()
    if not name or len(name) > 2000:
        raise InvalidInput(["The name must be 1 to 2000 characters."])
    if owner_uid is not None:
        owner_uid = validate_uid(owner_uid)
    uids = [uid for uid, _ in members]
    duplicates = sorted({uid for uid in uids if uids.count(uid) > 1})
    if duplicates:
        raise InvalidInput([f"Member {uid} is listed more than once." for uid in duplicates])
    tier = tier.strip()
    if len(tier) > TIER_MAX_LENGTH:
        raise InvalidInput([f"The tier is longer than {TIER_MAX_LENGTH} characters."])
    if "id" in fields and TrailSystem.objects.filter(pk=fields["id"]).exists():
        raise InvalidInput([f"A trail system with id {fields['id']} already exists here."])
    if parsed is None and collection is not None:
        parsed = parse_collection(collection, owner_uid or "")
    if parsed and (centre := parsed.centre()):
        fields.setdefault("lat", centre[0])
        fields.setdefault("lng", centre[1])
    if tier:
        fields["subscription"] = tier
    return SystemDraft(name, owner_uid, list(members), inactive, fields, parsed)


def create_trail_system(**arguments) -> TrailSystem:
    """Create a system with its owner, members and (optionally) imported trails and points,
    all in one transaction, and queue its first compile (arguments of draft_trail_system)."""
    return write_trail_system(draft_trail_system(**arguments))


def write_trail_system(draft: SystemDraft) -> TrailSystem:
    """The write side of every import that creates a system: one service call."""
    parsed = draft.parsed
    return services.create_trail_system(
        name=draft.name,
        owner_uid=draft.owner_uid,
        actor=Actor(draft.owner_uid or "", Via.IMPORT),
        members=draft.members,
        inactive=draft.inactive,
        **draft.fields,
        trails=parsed.trails if parsed else (),
        points=parsed.points if parsed else (),
    )
