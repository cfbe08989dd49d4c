"""A real recorded track (Blue Hills, BIG LOOP, 2001) over the real ski area it crosses, with
its times shifted so that its last position is now, and the three protocols that send it."""

import base64
import json
from datetime import datetime, timedelta
from xml.etree import ElementTree

from django.conf import settings
from django.utils import timezone

from core.actors import Actor, Via
from trails import services as trail_services
from trails.models import TrailSystem

DATA = settings.BASE_DIR / "data"
GPX = DATA / "blue_hills_reservation_mtb_2001.gpx"
AREA = DATA / "blue_hills_ski_area_ma_osm.geojson"


def blue_hills_system(owner, name: str = "Blue Hills") -> TrailSystem:
    """A trail system of the ski area's ways (lifts as Lift trails), made by the service that
    makes trails, so each trail has its extent."""
    from tests.factories import TrailSystemFactory

    system = TrailSystemFactory(owner=owner, name=name, lat=42.21, lng=-71.11)
    for feature in json.loads(AREA.read_text())["features"]:
        properties = feature["properties"]
        if properties["kind"] == "route" or feature["geometry"]["type"] != "LineString":
            continue
        trail_services.create_trail(
            system=system,
            name=f"{properties['name'] or ''} {feature['id']}".strip(),
            type="Lift" if properties["kind"] == "lift" else "Standard",
            geometry=feature["geometry"],
            actor=Actor(owner.uid, Via.IMPORT),
        )
    return system


def big_loop(now: datetime | None = None) -> list[tuple[float, float, datetime]]:
    """(lng, lat, time) of BIG LOOP's positions, shifted so that the last one is `now`."""
    root = ElementTree.parse(GPX).getroot()
    namespace = {"g": root.tag.split("}")[0][1:]}
    track = root.find("g:trk", namespace)
    points = [
        (
            float(point.attrib["lon"]),
            float(point.attrib["lat"]),
            datetime.fromisoformat(point.find("g:time", namespace).text.replace("Z", "+00:00")),
        )
        for point in track.iterfind(".//g:trkpt", namespace)
    ]
    # Whole seconds: OsmAnd and OwnTracks send times to the second.
    shift = (now or timezone.now().replace(microsecond=0)) - points[-1][2]
    return [(lng, lat, moment + shift) for lng, lat, moment in points]


def as_gpx(points) -> bytes:
    """The positions as a GPX file, as a groomer would upload them afterwards."""
    rows = "".join(
        f'<trkpt lat="{lat}" lon="{lng}"><time>{moment.isoformat()}</time></trkpt>'
        for lng, lat, moment in points
    )
    return (
        '<gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1">'
        f"<trk><trkseg>{rows}</trkseg></trk></gpx>"
    ).encode()


def send_osmand_query(client, secret: str, point) -> object:
    lng, lat, moment = point
    query = {"id": secret, "lat": lat, "lon": lng, "timestamp": int(moment.timestamp())}
    return client.get("/track/osmand", query)


def send_traccar_json(client, secret: str, point) -> object:
    lng, lat, moment = point
    body = {
        "location": {
            "timestamp": moment.isoformat().replace("+00:00", "Z"),
            "coords": {"latitude": lat, "longitude": lng, "accuracy": 5, "speed": 3},
            "is_moving": True,
        },
        "device_id": secret,
    }
    return client.post("/track/osmand", json.dumps(body), content_type="application/json")


def send_owntracks(client, secret: str, point) -> object:
    lng, lat, moment = point
    body = {
        "_type": "location",
        "lat": lat,
        "lon": lng,
        "tst": int(moment.timestamp()),
        "tid": "gr",
    }
    basic = base64.b64encode(f"groomer:{secret}".encode()).decode()
    return client.post(
        "/track/owntracks",
        json.dumps(body),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Basic {basic}",
    )


PROTOCOLS = (send_osmand_query, send_traccar_json, send_owntracks)


def replay(client, secret: str, points) -> list[int]:
    """Send the positions in order, a third by each protocol; the statuses answered."""
    third = len(points) // 3 + 1
    return [
        PROTOCOLS[i // third](client, secret, point).status_code for i, point in enumerate(points)
    ]


IDLE = timedelta(minutes=16)


def set_up_before(tracker_id: str, points) -> None:
    """The tracker was made before the machine went out: a position recorded before its
    tracker existed is dropped, and a replayed track's first positions are hours old."""
    from grooming.models import Tracker

    Tracker.objects.filter(pk=tracker_id).update(created_on=points[0][2] - timedelta(minutes=10))


def groomed_in_file(system_id: str) -> set[str]:
    """The trails the system's published file shows with a surface condition now."""
    import orjson
    from django.core.files.storage import default_storage

    path = TrailSystem.objects.values_list("geo_json_path", flat=True).get(pk=system_id)
    if not path:
        return set()
    with default_storage.open(path, "rb") as stored:
        collection = orjson.loads(stored.read())
    return {
        feature["properties"]["trailId"]
        for feature in collection["features"]
        if feature["properties"]["updates"].get("surfaceConditions")
    }


def drive(tracker, points, *, batch: int = 60) -> None:
    """The tracker sends its (lng, lat, time) positions `batch` at a time, then its session
    ends (the sweep, 16 minutes after the last one)."""
    from grooming.sessions import Position, receive_positions, sweep_sessions

    for start in range(0, len(points), batch):
        chunk = points[start : start + batch]
        receive_positions(
            tracker=tracker,
            positions=[Position(lng, lat, at, 5.0) for lng, lat, at in chunk],
            now=chunk[-1][2],
        )
    sweep_sessions(now=points[-1][2] + IDLE)
