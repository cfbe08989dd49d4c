"""Accuracy on real data: recorded rides against the trails they ran through, and a track
derived from a real nordic network with GPS error added."""

import json
import math
import random
from datetime import UTC, datetime
from itertools import pairwise

import pytest
from django.conf import settings
from pyproj import Geod

from core.actors import Actor, Via
from grooming.services import record_grooming_track
from grooming.tracks import Track, parse_gpx
from tests.factories import TrailFactory, TrailSystemFactory
from trails.geometry import lines

pytestmark = pytest.mark.django_db

DATA = settings.BASE_DIR / "data"
WGS84 = Geod(ellps="WGS84")
GROOMER = Actor("groomer", Via.ID_TOKEN)


def load_system(filename: str) -> tuple:
    """A trail system of the file's ways: lifts as Lift trails, the rest Standard."""
    collection = json.loads((DATA / filename).read_text())
    system = TrailSystemFactory()
    ways = {}
    for feature in collection["features"]:
        properties = feature["properties"]
        if properties["kind"] == "route" or feature["geometry"]["type"] not in (
            "LineString",
            "MultiLineString",
        ):
            continue
        ways[feature["id"]] = TrailFactory(
            trail_system=system,
            name=f"{properties['name'] or ''} {feature['id']}".strip(),
            type="Lift" if properties["kind"] == "lift" else "Standard",
            geometry=feature["geometry"],
        )
    return system, ways, collection


def groomed_ways(result, ways) -> dict[str, float]:
    by_trail = {trail.pk: way_id for way_id, trail in ways.items()}
    return {by_trail[t.trail_id]: t.coverage for t in result.trails}


def test_blue_hills_rides_groom_the_paths_ridden_and_never_a_lift():
    """BIG LOOP (2001) rides over four short paths of the ski area end to end (10 to 31 m,
    wholly within the tolerance), along most of Accord Path (524 of 633 m) and 56 m down a
    piste; it crosses two more pistes (8 and 24 m within the tolerance: a crossing, not a
    grooming) and runs beside a lift, which is never groomed. BUCK HILL and SHORT LOOP only
    touch the extract (50 m of an 811 m path, 15 m of Eliot Circle)."""
    system, ways, _ = load_system("blue_hills_ski_area_ma_osm.geojson")
    track = parse_gpx((DATA / "blue_hills_reservation_mtb_2001.gpx").read_bytes())
    result = record_grooming_track(system=system, track=track, actor=GROOMER, dry_run=True)
    groomed = groomed_ways(result, ways)
    assert set(groomed) == {
        "way/76859923",
        "way/330728321",
        "way/330728322",
        "way/903463064",
        "way/102239048",  # Accord Path
        "way/76859921",
    }
    assert groomed["way/102239048"] == pytest.approx(0.83, abs=0.01)
    assert all(groomed[way] == 1.0 for way in ("way/76859923", "way/330728321"))
    # The last track point (BUCK HILL); waypoint times do not count.
    assert result.groomed_at == datetime(2001, 10, 13, 21, 25, 40, tzinfo=UTC)


def with_gps_error(line, rng: random.Random, step: float = 4.0, error=(3.0, 8.0)) -> list:
    """Positions every `step` metres along a real way, each off by 3 to 8 m."""
    out = []
    for (lng0, lat0, *_), (lng1, lat1, *_) in pairwise(line):
        count = max(1, round(WGS84.inv(lng0, lat0, lng1, lat1)[2] / step))
        for i in range(count):
            lng, lat = lng0 + (lng1 - lng0) * i / count, lat0 + (lat1 - lat0) * i / count
            lng, lat, _ = WGS84.fwd(lng, lat, rng.uniform(0, 360), rng.uniform(*error))
            out.append([lng, lat])
    out.append(line[-1][:2])
    return out


def test_a_groomer_on_the_timber_trail_grooms_its_ways_and_no_other():
    """Lost Trail's "Timber Trail" route relation, driven way by way with GPS error: its nine
    ways are groomed, and the connectors and loops branching off it are not."""
    system, ways, collection = load_system("lost_trail_powder_mtn_osm.geojson")
    route = next(f for f in collection["features"] if f["id"] == "relation/6948556")
    members = {
        f["id"]
        for f in collection["features"]
        if any(r.get("id") == "relation/6948556" for r in f["properties"].get("routes") or [])
    }
    rng = random.Random(14)
    track = Track([with_gps_error(line, rng) for line in lines(route["geometry"])], None)
    result = record_grooming_track(system=system, track=track, actor=GROOMER, dry_run=True)
    groomed = groomed_ways(result, ways)
    assert len(members) == 9
    assert set(groomed) == members
    assert min(groomed.values()) > 0.95
    assert math.isclose(sum(groomed.values()), 9, rel_tol=0.01)
