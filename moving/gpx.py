"""A GPX track or route -> the geometry of one trail.

gpxpy reads GPX 1.0 and 1.1 (namespaces, vendor extensions). A track's segments become the
lines of a MultiLineString (one segment: a LineString); a route is one line. Tracks and routes
without points (Garmin writes an empty <rte/>) are ignored. Positions are rounded to 7 decimals
(about 1 cm, OpenStreetMap's precision) and elevations are dropped: the service computes a
trail's elevation profile itself.
"""

from dataclasses import dataclass, field

import gpxpy
import gpxpy.gpx

from trails.geometry import GeometryError
from trails.geometry import validate as validate_line
from trails.importing import InvalidInput, Problem

DECIMALS = 7


@dataclass
class GpxLine:
    """One track or route of a file, its good lines and the problems of the others."""

    label: str
    lines: list[list[list[float]]] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    def geometry(self) -> dict:
        if len(self.lines) == 1:
            return {"type": "LineString", "coordinates": self.lines[0]}
        return {"type": "MultiLineString", "coordinates": self.lines}


def read_gpx(path: str) -> gpxpy.gpx.GPX:
    try:
        with open(path, encoding="utf-8") as handle:
            return gpxpy.parse(handle)
    except OSError as error:
        raise InvalidInput([f"Cannot read {path}: {error.strerror or error}."]) from None
    except (UnicodeDecodeError, gpxpy.gpx.GPXException) as error:
        raise InvalidInput([f"{path} is not a GPX file: {error}"]) from None


def _candidates(gpx: gpxpy.gpx.GPX) -> list[tuple[str, list[list]]]:
    """(label, point lists) of every track and route that has points."""
    found = []
    for number, track in enumerate(gpx.tracks, start=1):
        if any(segment.points for segment in track.segments):
            found.append((track.name or f"track {number}", [s.points for s in track.segments]))
    for number, route in enumerate(gpx.routes, start=1):
        if route.points:
            found.append((route.name or f"route {number}", [route.points]))
    return found


def pick_line(gpx: gpxpy.gpx.GPX, wanted: str | None) -> GpxLine:
    """The file's only track or route, or the one named or numbered (from 1) by `wanted`."""
    candidates = _candidates(gpx)
    listing = ", ".join(f"{n}: {label}" for n, (label, _) in enumerate(candidates, start=1))
    if not candidates:
        raise InvalidInput(["The file holds no track or route with points."])
    if wanted is None:
        if len(candidates) > 1:
            raise InvalidInput(
                [f"The file holds {len(candidates)} tracks and routes ({listing}); "
                 "choose one with --track NAME or --track NUMBER."]
            )  # fmt: skip
        chosen = candidates[0]
    elif wanted.isdigit() and 1 <= int(wanted) <= len(candidates):
        chosen = candidates[int(wanted) - 1]
    else:
        matches = [c for c in candidates if c[0].casefold() == wanted.strip().casefold()]
        if not matches:
            raise InvalidInput([f"No track or route {wanted!r} in the file ({listing})."])
        chosen = matches[0]
    label, segments = chosen
    return _lines(label, segments)


def _lines(label: str, segments: list[list]) -> GpxLine:
    """Each segment checked as a trail line; a bad one is a problem named by its index."""
    result = GpxLine(label)
    for index, points in enumerate(segments):
        coordinates = [[round(p.longitude, DECIMALS), round(p.latitude, DECIMALS)] for p in points]
        try:
            result.lines.append(
                validate_line({"type": "LineString", "coordinates": coordinates})["coordinates"]
            )
        except GeometryError as error:
            result.problems.append(Problem(index, label, "", str(error), unit="segment"))
    return result
