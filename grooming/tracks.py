"""Grooming tracks as uploaded: GPX (tracks and routes, any number of segments) or GeoJSON
lines, read into [lng, lat] lines and the time of the last recorded point."""

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

import gpxpy
import gpxpy.gpx

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

    @property
    def point_count(self) -> int:
        return sum(len(line) for line in self.lines)

    def geometry(self) -> dict:
        """A MultiLineString of every segment, as stored with the grooming pass."""
        return {"type": "MultiLineString", "coordinates": self.lines}


def _checked(track_lines: list, last_time: datetime | None, kind: str) -> Track:
    if not track_lines:
        raise TrackError(f"The {kind} holds no track: no line with two distinct positions.")
    return Track(track_lines, last_time)


def _segment(points: list[gpxpy.gpx.GPXTrackPoint], where: str) -> list[list[float]] | None:
    """A segment's positions, or None for a segment of fewer than two distinct positions
    (a device writes one when it loses and regains its fix in the same place)."""
    positions = [[p.longitude, p.latitude] for p in points]
    if len({(lng, lat) for lng, lat in positions}) < 2:
        return None
    try:
        return validate({"type": "LineString", "coordinates": positions})["coordinates"]
    except GeometryError as error:
        raise TrackError(f"GPX {where}: {error}") from None


def _utc(moment: datetime) -> datetime:
    """GPX times without a zone are UTC (the GPX schema's xsd:dateTime says so)."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def parse_gpx(data: bytes) -> Track:
    """Every track segment and route of a GPX 1.0 or 1.1 file; waypoints are ignored."""
    try:
        gpx = gpxpy.parse(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise TrackError("The GPX file is not UTF-8 text.") from None
    except (gpxpy.gpx.GPXException, ValueError) as error:
        raise TrackError(f"The GPX file cannot be read: {error}") from None
    parts: list[tuple[str, list]] = []
    for t, track in enumerate(gpx.tracks):
        for s, segment in enumerate(track.segments):
            parts.append((f"track {t + 1} segment {s + 1}", segment.points))
    for r, route in enumerate(gpx.routes):
        parts.append((f"route {r + 1}", route.points))
    track_lines = [line for where, points in parts if (line := _segment(points, where))]
    times = [_utc(p.time) for _, points in parts for p in points if p.time is not None]
    return _checked(track_lines, max(times, default=None), "GPX file")


def _geometries(document: dict) -> Iterable[tuple[str, object]]:
    kind = document.get("type")
    if kind == "FeatureCollection":
        features = document.get("features")
        if not isinstance(features, list):
            raise TrackError("features of a FeatureCollection must be a list.")
        for i, feature in enumerate(features):
            if not isinstance(feature, dict) or feature.get("type") != "Feature":
                raise TrackError(f"features[{i}] is not a GeoJSON Feature.")
            yield f"features[{i}].geometry", feature.get("geometry")
    elif kind == "Feature":
        yield "geometry", document.get("geometry")
    elif kind in LINE_TYPES:
        yield "body", document
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
    for where, geometry in _geometries(document):
        if isinstance(geometry, dict) and geometry.get("type") in NON_LINE_TYPES:
            continue
        try:
            track_lines.extend(lines(validate(geometry)))
        except GeometryError as error:
            raise TrackError(f"{where}: {error}") from None
    return _checked(track_lines, None, "GeoJSON")
