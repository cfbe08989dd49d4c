"""Reading uploads: GPX tracks, routes and segments, GeoJSON lines, and what is refused."""

from datetime import UTC, datetime, timedelta

import pytest

from grooming.tracks import TrackError, parse_geojson, parse_gpx
from tests.grooming.geo import gpx, path

START = datetime(2026, 1, 15, 5, 0, tzinfo=UTC)
LINE = path([(0, 0), (100, 0)], step=50)


def test_gpx_segments_stay_apart_and_the_last_time_is_kept():
    data = gpx([LINE, path([(0, 50), (100, 50)], step=50)], START, gap=timedelta(minutes=30))
    track = parse_gpx(data)
    assert len(track.lines) == 2
    assert track.lines[0] == [[pytest.approx(lng), pytest.approx(lat)] for lng, lat in LINE]
    assert track.last_time == START + timedelta(minutes=30, seconds=5)
    assert track.geometry()["type"] == "MultiLineString"


def test_gpx_routes_count_and_waypoints_do_not():
    data = b"""<?xml version="1.0"?>
    <gpx version="1.0" creator="x" xmlns="http://www.topografix.com/GPX/1/0">
      <wpt lat="45.7" lon="-113.9"><name>Hut</name></wpt>
      <rte><rtept lat="45.69" lon="-113.95"/><rtept lat="45.691" lon="-113.951"/></rte>
    </gpx>"""
    track = parse_gpx(data)
    assert track.lines == [[[-113.95, 45.69], [-113.951, 45.691]]]
    assert track.last_time is None


def test_gpx_times_with_an_offset_are_read_as_utc_and_one_point_segments_are_dropped():
    data = b"""<gpx version="1.1" creator="x"><trk>
      <trkseg><trkpt lat="45.69" lon="-113.95"><time>2026-01-15T06:00:00+01:00</time></trkpt>
      </trkseg>
      <trkseg><trkpt lat="45.69" lon="-113.95"><time>2026-01-15T05:10:00+01:00</time></trkpt>
      <trkpt lat="45.691" lon="-113.95"><time>2026-01-15T05:11:00+01:00</time></trkpt></trkseg>
    </trk></gpx>"""
    track = parse_gpx(data)
    assert len(track.lines) == 1
    assert track.last_time == datetime(2026, 1, 15, 5, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    "data, says",
    [
        (b"<gpx><trk><trkseg><trkpt lat=", "cannot be read"),
        (b"not xml at all", "cannot be read"),
        ("<gpx>é</gpx>".encode("latin-1"), "cannot be read"),
        (b"<kml><Document/></kml>", "not GPX: its root is <kml>"),
        (b'<gpx><trk><trkseg><trkpt lat="45" lon="-113"><time>dawn</time></trkpt>'
         b"</trkseg></trk></gpx>", "'dawn' is not a date"),
        (b'<gpx><trk><trkseg><trkpt lat="45"/><trkpt lat="46"/></trkseg></trk></gpx>',
         "numeric lat and lon"),
        (b'<gpx version="1.1" creator="x"></gpx>', "holds no track"),
        (b'<gpx version="1.1"><trk><trkseg><trkpt lat="45" lon="-113"/></trkseg></trk></gpx>',
         "holds no track"),
        (b'<gpx version="1.1"><trk><trkseg><trkpt lat="95" lon="-113"/>'
         b'<trkpt lat="45" lon="-113"/></trkseg></trk></gpx>', "track 1 segment 1"),
    ],
    ids=[
        "truncated", "not xml", "undeclared latin-1", "kml", "bad time", "no lon", "no track",
        "one point", "latitude 95",
    ],
)  # fmt: skip
def test_unusable_gpx_says_why(data, says):
    with pytest.raises(TrackError, match=says):
        parse_gpx(data)


def test_gpx_in_a_declared_encoding():
    data = (
        '<?xml version="1.0" encoding="ISO-8859-1"?><gpx version="1.1"><trk><name>Piste é</name>'
        '<trkseg><trkpt lat="45.69" lon="-113.95"/><trkpt lat="45.691" lon="-113.95"/></trkseg>'
        "</trk></gpx>"
    ).encode("latin-1")
    assert parse_gpx(data).lines == [[[-113.95, 45.69], [-113.95, 45.691]]]


def test_geojson_forms():
    line = {"type": "LineString", "coordinates": LINE}
    multi = {"type": "MultiLineString", "coordinates": [LINE, LINE]}
    feature = {"type": "Feature", "properties": {}, "geometry": multi}
    point = {"type": "Feature", "geometry": {"type": "Point", "coordinates": LINE[0]}}
    collection = {"type": "FeatureCollection", "features": [feature, point, feature]}
    assert len(parse_geojson(line).lines) == 1
    assert len(parse_geojson(feature).lines) == 2
    assert len(parse_geojson(collection).lines) == 4
    assert parse_geojson(line).last_time is None


@pytest.mark.parametrize(
    "document, says",
    [
        ([], "GeoJSON object"),
        ({"type": "Polygon", "coordinates": []}, "not 'Polygon'"),
        ({"type": "FeatureCollection", "features": []}, "holds no track"),
        ({"type": "FeatureCollection", "features": {}}, "must be a list"),
        ({"type": "FeatureCollection", "features": [1]}, r"features\[0\] is not"),
        ({"type": "Feature", "geometry": None}, "geometry must be"),
        ({"type": "LineString", "coordinates": [[0, 0]]}, "two distinct positions"),
        ({"type": "LineString", "coordinates": [[0, 0], [200, 0]]}, "out of range"),
    ],
)
def test_unusable_geojson_says_why(document, says):
    with pytest.raises(TrackError, match=says):
        parse_geojson(document)


def test_geojson_keeps_the_times_a_gpx_converter_wrote():
    """togeojson writes coordinateProperties.times (older versions coordTimes), a list per
    line of a MultiLineString."""
    times = ["2026-01-15T05:00:00Z", "2026-01-15T05:00:01Z", "2026-01-15T05:00:02Z"]
    feature = {
        "type": "Feature",
        "properties": {"coordinateProperties": {"times": times}},
        "geometry": {"type": "LineString", "coordinates": LINE},
    }
    older = {
        "type": "Feature",
        "properties": {"coordTimes": [times, ["2026-01-15T06:10:00.000Z"]]},
        "geometry": {"type": "MultiLineString", "coordinates": [LINE, LINE]},
    }
    collection = {"type": "FeatureCollection", "features": [feature, older]}
    assert parse_geojson(feature).last_time == datetime(2026, 1, 15, 5, 0, 2, tzinfo=UTC)
    assert parse_geojson(collection).last_time == datetime(2026, 1, 15, 6, 10, tzinfo=UTC)
    feature["properties"]["coordinateProperties"]["times"] = ["soon"]
    with pytest.raises(TrackError, match=r"feature\.properties: a time is not a date"):
        parse_geojson(feature)
