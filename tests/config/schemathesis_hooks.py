"""Schemathesis hooks (SCHEMATHESIS_HOOKS) for the rules JSON Schema cannot write: each keeps
the data schemathesis generates as valid by the schema within a rule that depends on the
clock, on the rows of the system, or on the position of a number in a list (OpenAPI 3.0 has
no tuple items). Only cases meant to be accepted are touched. Each rule is in the schema's
descriptions and in docs/developers/api.md ("Rules the schema cannot write").

The fixture's trail comes from the environment: FUZZ_TRAIL_LINE (its coordinates, JSON) and
FUZZ_TRAIL_ACTIVITY (an activity it has). The run deletes each capped row it creates."""

import json
import os
from datetime import UTC, date, datetime, timedelta

import requests
import schemathesis
from pyproj import Geod
from schemathesis.transport.serialization import serialize_xml

from core.limits import ELEVATION_MAX, ELEVATION_MIN, LATITUDE_MAX, LONGITUDE_MAX

POSITION_BOUNDS = (
    (-LONGITUDE_MAX, LONGITUDE_MAX),
    (-LATITUDE_MAX, LATITUDE_MAX),
    (ELEVATION_MIN, ELEVATION_MAX),
)
A_STEP = 0.001  # degrees between two made-distinct positions
WGS84 = Geod(ellps="WGS84")


def _in_range(position: list) -> list:
    """[lng, lat(, elevation)], each within its own bounds."""
    return [
        min(max(n, low), high) for n, (low, high) in zip(position, POSITION_BOUNDS, strict=False)
    ]


def _usable_line(line: list) -> list:
    """A line of positions within range and with two distinct positions at least (by
    longitude and latitude: an elevation alone does not make a position distinct)."""
    line = [_in_range(position) for position in line]
    if len({tuple(position[:2]) for position in line}) < 2:
        first = line[0]
        lng = first[0] + A_STEP if first[0] + A_STEP <= LONGITUDE_MAX else first[0] - A_STEP
        line[-1] = [lng, *first[1:]]
    return line


def _usable_geometry(geometry: dict) -> dict:
    if geometry["type"] == "LineString":
        return {**geometry, "coordinates": _usable_line(geometry["coordinates"])}
    return {**geometry, "coordinates": [_usable_line(line) for line in geometry["coordinates"]]}


def trail_line() -> list:
    return json.loads(os.environ["FUZZ_TRAIL_LINE"])


def _on_the_trail(geometry: dict) -> dict:
    """The track follows the fixture's trail: a track must come near one of the system's."""
    if geometry["type"] == "LineString":
        return {**geometry, "coordinates": trail_line()}
    return {**geometry, "coordinates": [trail_line()]}


def _track_on_the_trail(body):
    if isinstance(body, str):
        points = "".join(f'<trkpt lat="{lat}" lon="{lng}"/>' for lng, lat, *_ in trail_line())
        # A string, as the schema says (bytes would make the case schema-violating); the
        # serializer below sends a GPX document as it is.
        return (
            f'{GPX_START}<gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1">'
            f"<trk><trkseg>{points}</trkseg></trk></gpx>"
        )
    if body["type"] == "FeatureCollection":
        return {**body, "features": [_track_on_the_trail(f) for f in body["features"]]}
    if body["type"] == "Feature":
        # Its properties' times are the track's; a track recorded in the future is refused.
        return {**body, "geometry": _on_the_trail(body["geometry"]), "properties": None}
    return _on_the_trail(body)


GPX_START = '<?xml version="1.0" encoding="UTF-8"?>'


@schemathesis.serializer("application/xml", "text/xml")
def xml_as_written(ctx, value) -> bytes:
    """A GPX document the hooks wrote goes as it is; anything else as schemathesis sends XML
    (wrapped in an element named after the schema), which application/gpx+xml falls under."""
    if isinstance(value, str) and value.startswith(GPX_START):
        return value.encode()
    return serialize_xml(ctx.case, value)["data"]


def _parsed(moment: str) -> datetime | None:
    try:
        parsed = datetime.fromisoformat(moment)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def map_trail_create(case):
    case.body = {**case.body, "geometry": _usable_geometry(case.body["geometry"])}


def map_grooming_track(case):
    """A track near the system's trails, groomed no later than now."""
    case.body = _track_on_the_trail(case.body)
    groomed_at = _parsed((case.query or {}).get("groomedAt", ""))
    if groomed_at and groomed_at > datetime.now(UTC):
        case.query = {**case.query, "groomedAt": "2026-01-01T00:00:00Z"}


def map_trail_change(case):
    """Activities the trail has (400 unknown_activity for one it lacks)."""
    activity = os.environ["FUZZ_TRAIL_ACTIVITY"]
    if "activities" in case.body:
        changes = [{**change, "value": activity} for change in case.body["activities"]]
        case.body = {**case.body, "activities": changes}


def map_update_expiry(case):
    """An expirationDate is in the future."""
    expiry = _parsed(case.body.get("expirationDate", ""))
    if expiry and expiry <= datetime.now(UTC) + timedelta(minutes=1):
        later = datetime.now(UTC) + timedelta(hours=1)
        case.body = {**case.body, "expirationDate": later.isoformat()}


# The fixture's update is a notice: a PATCH of it holds one of these (400 no_changes without).
NOTICE_FIELDS = {
    *("expirationDate", "expiresInHours", "notify", "trailIds", "allTrails"),
    *("description", "severity", "linkUrl"),
}


def map_update_change(case):
    """A field the notice has, and an expirationDate in the future."""
    if not NOTICE_FIELDS & case.body.keys():
        case.body = {**case.body, "notify": False}
    map_update_expiry(case)


def map_route_check(case):
    """A route along the fixture's trail."""
    case.body = _track_on_the_trail(case.body)


def _trail_length() -> float:
    line = trail_line()
    return WGS84.line_length([p[0] for p in line], [p[1] for p in line])


def _ends_apart(body: dict) -> None:
    """Distances along the trail within its length, the two ends a metre apart at least (an
    end not given is the trail's start or end; a place is put on its first or last position)."""
    length = _trail_length()
    for name in ("fromMeters", "toMeters"):
        if name in body:
            body[name] = min(body[name], length)
    start, end = body.get("fromMeters", 0.0), body.get("toMeters", length)
    if abs(end - start) < 1:
        if "toMeters" in body:
            body["toMeters"] = 0.0 if start > length / 2 else length
        else:
            body["fromMeters"] = 0.0


def map_closure(case):
    """One way to name each end (`from` or `fromMeters`, 400 with both), each on the trail and
    the two apart; activities the trail has; a detour line of usable positions; an end after
    the start and in the future (400 naming endsAt otherwise). A change of either time says
    both, so neither is checked against the other's stored value."""
    body = dict(case.body)
    for end, index in (("from", 0), ("to", -1)):
        if f"{end}Meters" in body:
            body.pop(end, None)
        elif end in body:  # a place on the trail (400 beyond 50 m of it)
            lng, lat = trail_line()[index][:2]
            body[end] = {"lat": lat, "lng": lng}
    _ends_apart(body)
    if body.get("activities"):
        body["activities"] = [os.environ["FUZZ_TRAIL_ACTIVITY"]]
    if body.get("detourGeometry"):
        body["detourGeometry"] = _usable_geometry(body["detourGeometry"])
    if case.operation.method.upper() == "PATCH" and {"startsAt", "endsAt"} & body.keys():
        body.setdefault("startsAt", None)  # now
        body.setdefault("endsAt", None)  # none
    starts, ends = _parsed(body.get("startsAt") or ""), _parsed(body.get("endsAt") or "")
    latest = max(starts or datetime.now(UTC), datetime.now(UTC))
    if ends and ends <= latest:  # an end after the start, and in the future
        body["endsAt"] = (latest + timedelta(hours=1)).isoformat()
    case.body = body


def map_log_period(case):
    """A period of whole days, `from` not after `to`, at most 400 days (GET's query, POST's
    body): an approval of a week the run approves again is reopened at once (after_call)."""
    period = (case.query or {}) if case.operation.method.upper() == "GET" else case.body
    days = {name: _day(period.get(name)) for name in ("from", "to")}
    first, last = days["from"] or date(2026, 1, 5), days["to"] or date(2026, 1, 11)
    first, last = min(first, last), max(first, last)
    last = min(last, first + timedelta(days=399))
    chosen = {"from": first.isoformat(), "to": last.isoformat()}
    if case.operation.method.upper() == "GET":
        case.query = {**period, **chosen}
    else:
        case.body = {**period, **chosen}


def _day(text) -> date | None:
    try:
        return date.fromisoformat(text) if isinstance(text, str) else None
    except ValueError:
        return None


RULES = {
    ("POST", "/trail-systems/{system_id}/route-check"): map_route_check,
    ("POST", "/trails/{id}/closures"): map_closure,
    ("PATCH", "/closures/{id}"): map_closure,
    ("GET", "/trail-systems/{system_id}/grooming-log"): map_log_period,
    ("POST", "/trail-systems/{system_id}/grooming-log/approvals"): map_log_period,
    ("POST", "/trail-systems/{system_id}/trails"): map_trail_create,
    ("POST", "/trail-systems/{system_id}/grooming-tracks"): map_grooming_track,
    ("PATCH", "/trails/{id}"): map_trail_change,
    ("POST", "/trail-systems/{system_id}/updates"): map_update_expiry,
    ("PATCH", "/updates/{id}"): map_update_change,
}


@schemathesis.hook
def map_case(context, case):
    """Cases schemathesis expects to be accepted (its positive_data_acceptance check asks the
    same of the case's generation mode, in every phase, the stateful one included)."""
    rule = RULES.get((case.operation.method.upper(), case.operation.path))
    positive = case.meta is not None and case.meta.generation.mode.is_positive
    reads = case.operation.method.upper() == "GET"
    if rule is not None and positive and (reads or isinstance(case.body, dict | str)):
        rule(case)
    return case


# Collections with a cap per account or per system (400 too_many_keys, too_many_webhooks,
# too_many_schedules): the run deletes each row it creates in them at once.
CAPPED_COLLECTIONS = (
    "/keys",
    "/trail-systems/{system_id}/webhooks",
    "/trail-systems/{system_id}/schedules",
)


@schemathesis.hook
def after_call(context, case, response):
    """Each key, webhook and schedule the run creates is deleted at once, so that no later
    request meets a cap the run itself filled (revoked keys do not count)."""
    created = case.operation.method.upper() == "POST" and response.status_code == 201
    credentials = {"Authorization": response.request.headers.get("Authorization", "")}
    if created and case.operation.path.endswith("/grooming-log/approvals"):
        # Reopened at once, so that the run may approve the same week again.
        reopen = f"{response.request.url.rstrip('/')}/{response.json()['id']}/reopen"
        requests.post(reopen, json={"reason": "schema run"}, headers=credentials, timeout=30)
    if created and case.operation.path in CAPPED_COLLECTIONS:
        row_url = f"{response.request.url.split('?')[0].rstrip('/')}/{response.json()['id']}"
        requests.delete(row_url, headers=credentials, timeout=30)
