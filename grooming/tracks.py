"""Grooming tracks as uploaded: GPX (tracks and routes, any number of segments) or GeoJSON
lines, read into [lng, lat] lines and the time of the last recorded point."""

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np
from lxml import etree

from core.jsdate import InvalidDate, parse_js_date
from trails.geometry import LINE_TYPES, GeometryError, lines, validate

# GeoJSON types that hold no line, skipped in a FeatureCollection (GPX waypoints converted by
# the usual tools come out as Points next to the track).
NON_LINE_TYPES = ("Point", "MultiPoint")


class TrackError(ValueError):
    """The upload is not a usable track; the message says what is wrong with it."""


@dataclass(frozen=True)
class Track:
    lines: list[list[list[float]]]  # [[lng, lat(, elevation)], ...] per segment
    last_time: datetime | None  # of the last recorded point, when the file has times
    # Every recorded time, in order: the grooming log's hours come from them.
    times: tuple[datetime, ...] = ()

    @property
    def point_count(self) -> int:
        return sum(len(line) for line in self.lines)

    def geometry(self) -> dict:
        """A MultiLineString of every segment, as stored with the grooming pass."""
        return {"type": "MultiLineString", "coordinates": self.lines}


def _checked(track_lines: list, times: list[datetime], kind: str) -> Track:
    if not track_lines:
        raise TrackError(f"The {kind} holds no track: no line with two distinct positions.")
    ordered = tuple(sorted(times))
    return Track(track_lines, ordered[-1] if ordered else None, ordered)


def _gpx_parser() -> etree.XMLParser:
    """A parser per document (lxml's parsers are not shared between threads) that loads no
    DTD, expands no entity and fetches nothing: an upload cannot make it read a file or a
    URL, nor grow into a bomb."""
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)


def _time(point: etree._Element) -> datetime | None:
    """A point's <time>, in UTC; a time without a zone is UTC (xsd:dateTime in GPX)."""
    text = (point.findtext("{*}time") or "").strip()
    if not text:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise TrackError(f"GPX time {text!r} is not a date.") from None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _segment(points: list[etree._Element], where: str) -> list[list[float]] | None:
    """A segment's positions, or None for a segment of fewer than two distinct positions
    (a device writes one when it loses and regains its fix in the same place)."""
    try:
        positions = [[float(p.attrib["lon"]), float(p.attrib["lat"])] for p in points]
    except (KeyError, ValueError):
        raise TrackError(f"GPX {where}: every point needs numeric lat and lon.") from None
    if len({(lng, lat) for lng, lat in positions}) < 2:
        return None
    lng_lat = np.array(positions)
    in_range = (np.abs(lng_lat) <= (180, 90)).all()  # False for NaN too
    if not in_range:
        raise TrackError(f"GPX {where}: a point is out of range (lon -180..180, lat -90..90).")
    return positions


def _times(points: list[etree._Element]) -> list[datetime]:
    """The times of the points that have one."""
    return [moment for p in points if (moment := _time(p))]


def _gpx_parts(root: etree._Element) -> list[tuple[str, list[etree._Element]]]:
    """(where, points) of every track segment and every route, in file order; `{*}` names an
    element in any namespace or none, so GPX 1.0, 1.1 and none are read alike."""
    parts = []
    for t, track in enumerate(root.iterchildren("{*}trk"), 1):
        for s, segment in enumerate(track.iterchildren("{*}trkseg"), 1):
            parts.append((f"track {t} segment {s}", list(segment.iterchildren("{*}trkpt"))))
    for r, route in enumerate(root.iterchildren("{*}rte"), 1):
        parts.append((f"route {r}", list(route.iterchildren("{*}rtept"))))
    return parts


def parse_gpx(data: bytes) -> Track:
    """Every track segment and route of a GPX 1.0 or 1.1 file; waypoints are ignored.

    lxml keeps the tree in C: a 10,000-point route makes no Python object per element
    beyond the points being read, so the cyclic collector has nothing to rescan."""
    try:
        root = etree.fromstring(data, _gpx_parser())
    except etree.XMLSyntaxError as error:
        raise TrackError(f"The GPX file cannot be read: {error}") from None
    name = etree.QName(root).localname
    if name != "gpx":
        raise TrackError(f"The file is XML but not GPX: its root is <{name}>.")
    parts = _gpx_parts(root)
    track_lines = [line for where, points in parts if (line := _segment(points, where))]
    times = [moment for _, points in parts for moment in _times(points)]
    return _checked(track_lines, times, "GPX file")


def _features(document: dict) -> Iterable[tuple[str, dict]]:
    """(where, feature) of each feature; a bare geometry is a feature without properties."""
    kind = document.get("type")
    if kind == "FeatureCollection":
        features = document.get("features")
        if not isinstance(features, list):
            raise TrackError("features of a FeatureCollection must be a list.")
        for i, feature in enumerate(features):
            if not isinstance(feature, dict) or feature.get("type") != "Feature":
                raise TrackError(f"features[{i}] is not a GeoJSON Feature.")
            yield f"features[{i}]", feature
    elif kind == "Feature":
        yield "feature", document
    elif kind in LINE_TYPES:
        yield "body", {"geometry": document}
    else:
        raise TrackError(
            "The body must be a GeoJSON LineString, MultiLineString, Feature or "
            f"FeatureCollection of lines, not {kind!r}."
        )


def parse_geojson(document: object) -> Track:
    """The lines of a GeoJSON geometry, Feature or FeatureCollection; in a collection,
    Point features are skipped and any other non-line geometry is refused."""
    if not isinstance(document, dict):
        raise TrackError("The body must be a GeoJSON object.")
    track_lines: list = []
    times: list[datetime] = []
    for where, feature in _features(document):
        geometry = feature.get("geometry")
        if isinstance(geometry, dict) and geometry.get("type") in NON_LINE_TYPES:
            continue
        try:
            track_lines.extend(lines(validate(geometry)))
        except GeometryError as error:
            raise TrackError(f"{where}.geometry: {error}") from None
        times.extend(_feature_times(feature.get("properties"), where))
    return _checked(track_lines, times, "GeoJSON")


def _feature_times(properties, where: str) -> list[datetime]:
    """The times of each line's positions, where a GPX converter kept them: togeojson's
    `coordinateProperties.times` or its older `coordTimes` (a list per line of a multi-line)."""
    if not isinstance(properties, dict):
        return []
    by_position = properties.get("coordinateProperties")
    times = by_position.get("times") if isinstance(by_position, dict) else None
    times = times if times is not None else properties.get("coordTimes")
    if not isinstance(times, list) or not times:
        return []
    per_line = times if all(isinstance(t, list) for t in times) else [times]
    try:
        return [parse_js_date(moment) for line in per_line for moment in line]
    except (InvalidDate, AttributeError):
        raise TrackError(f"{where}.properties: a time is not a date.") from None


def parse_upload(data: bytes) -> Track:
    """A GPX file, or GeoJSON lines: told apart by the first character, not the file name."""
    if data.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<"):
        return parse_gpx(data)
    try:
        document = json.loads(data)
    except ValueError as error:
        raise TrackError(f"The file is neither GPX nor valid JSON: {error}") from None
    return parse_geojson(document)
