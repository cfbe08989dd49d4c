"""The demo trail system `make run` loads: Lost Trail Powder Mountain from OpenStreetMap.

The OSM extract (data/, ODbL) is converted to the published-file format by `trails.osm`, given a
mix of statuses and a few points, and imported by `trails.importing` like any migrated file. It
is on a paid tier and gets its first weather snapshot at once (the configured provider; `fixed`
by default), so every weather route answers from the start, not after beat's first hour.
"""

import json
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from apikeys.services import ensure_account
from core.actors import Actor, Via
from publishing import weather
from trails import osm
from trails.enums import TrailStatus
from trails.importing import create_trail_system
from trails.models import Trail, TrailSystem
from updates.models import Update
from updates.services import create_update

DEMO_SYSTEM_ID = "demoLostTrailPowder1"
DEMO_OWNER_UID = "demo-owner"
DEMO_OWNER_EMAIL = "owner@demo.test"
DEMO_TRUSTEE_UID = "demo-trustee"
DEMO_TIER = "pro"  # a tier that collects weather (publishing.weather.WEATHER_TIERS)
DATA_FILE = settings.BASE_DIR / "data" / "lost_trail_powder_mtn_osm.geojson"
# Long enough that a demo started months later still shows its updates (the spec's maximum).
UPDATE_LIFETIME = timedelta(hours=8760)
WEB_CAM_URL = "https://example.com/webcams/lost-trail-summit.jpg"

# The map data's terms (OpenStreetMap, ODbL 1.0: data/README.md), as the demo's feed
# discovery file states them.
OSM_TERMS = {
    "license_url": "https://opendatacommons.org/licenses/odbl/1-0/",
    "attribution_name": "OpenStreetMap contributors",
    "attribution_url": "https://www.openstreetmap.org/copyright",
}

DESCRIPTION = (
    "Demo trail system: nordic and alpine trails of Lost Trail Powder Mountain "
    "(Montana/Idaho). Map data © OpenStreetMap contributors, ODbL 1.0, "
    "https://www.openstreetmap.org/copyright"
)


def _status_mix(properties: dict) -> None:
    """A deterministic, realistic mix: summer trails closed for the season, some alpine runs
    and lifts closed or on caution, nordic trails derived from their activities."""
    order = properties["order"]
    category = properties["categories"][0]
    if category == osm.CATEGORY["summer"]:
        status = TrailStatus.CLOSED
    elif category == osm.CATEGORY["nordic"]:
        status = TrailStatus.NONE
        for position, activity in enumerate(properties["activities"]):
            activity["status"] = "Caution" if (order + position) % 5 == 0 else "Open"
    elif order % 7 == 3:
        status = TrailStatus.CLOSED
    elif order % 6 == 1:
        status = TrailStatus.CAUTION
    else:
        status = TrailStatus.OPEN
    properties["status"] = str(status)
    if status == TrailStatus.CLOSED:
        for activity in properties["activities"]:
            activity["status"] = "Closed"


def _point(name: str, marker: str, lng: float, lat: float, **properties) -> dict:
    return {
        "type": "Feature",
        "geometry": {"type": "Point", "coordinates": [round(lng, 7), round(lat, 7)]},
        "properties": {"name": name, "markerClass": marker, "status": "Open", **properties},
    }


def _ends(features: list[dict], name: str) -> tuple[list[float], list[float]]:
    """First and last [lng, lat] of the trail feature with this name."""
    line = next(f for f in features if f["properties"]["name"] == name)["geometry"]
    return line["coordinates"][0][:2], line["coordinates"][-1][:2]


def _points(features: list[dict]) -> list[dict]:
    """Points placed on the real map: around Chair 1 and at the nordic trailhead."""
    (base_lng, base_lat), (top_lng, top_lat) = _ends(features, "Chair 1")
    (nordic_lng, nordic_lat), _ = _ends(features, "Timber Trail")
    return [
        _point("Main lodge", "lodge", base_lng - 0.0012, base_lat - 0.0006,
               description="Tickets, rentals, food.", diningOptions=True),
        _point("Ski patrol", "first-aid", base_lng - 0.0006, base_lat - 0.0009,
               description="First aid at the base of Chair 1."),
        _point("Main parking", "parking", base_lng - 0.0025, base_lat - 0.0015),
        _point("Chair 1 line", "wait-time", base_lng, base_lat, waitTime=5),
        _point("Summit cam", "web-cam", top_lng, top_lat, webCamUrl=WEB_CAM_URL),
        _point("Nordic trailhead", "trailhead", nordic_lng, nordic_lat,
               description="Start of the groomed nordic network."),
        _point("Nordic parking", "parking-busy", nordic_lng - 0.0008, nordic_lat - 0.0004,
               status="Caution", description="Fills up by 10:00 on weekends."),
    ]  # fmt: skip


def demo_collection() -> dict:
    """The demo as a published-file FeatureCollection (trails from OSM, plus points)."""
    with open(DATA_FILE, encoding="utf-8") as handle:
        collection = osm.convert(json.load(handle))
    for feature in collection["features"]:
        if feature["properties"]["showInLists"]:
            _status_mix(feature["properties"])
    collection["features"] += _points(collection["features"])
    return collection


def _post_updates(system: TrailSystem, nordic_ids: list[str]) -> None:
    """A notice, a snow report and surface conditions on some nordic trails."""
    now = timezone.now()
    nordic = list(
        Trail.objects.filter(pk__in=nordic_ids).order_by("order").values_list("pk", flat=True)
    )
    bodies = [
        {
            "type": "notice",
            "severity": "info",
            "description": "Welcome to the demo! Chair 1 opens at 9:00; "
            "nordic trails groomed daily.",
        },
        {
            "type": "snowReport",
            "base_depth": 48,
            "twenty_four_hours": 4,
            "fourty_eight_hours": 9,
            "seven_days": 16,
            "season_total": 142,
            "last_snow_amount": 4,
            "last_snow_date": now - timedelta(hours=10),
            "last_snow_time": "02:00",
        },
        {
            "type": "surfaceConditions",
            "conditions": ["classicGroomed", "skateGroomed"],
            "trail_ids": nordic[:6],
        },
        {"type": "surfaceConditions", "conditions": ["icy"], "trail_ids": nordic[-2:]},
    ]
    for body in bodies:
        create_update(
            system=system,
            **body,
            expiration_date=now + UPDATE_LIFETIME,
            actor=Actor(DEMO_OWNER_UID, Via.IMPORT),
            source=Update.Source.IMPORT,
        )


def load_demo() -> tuple[TrailSystem, bool]:
    """The demo system, loading it first if absent; (system, whether it was loaded now)."""
    existing = TrailSystem.objects.filter(pk=DEMO_SYSTEM_ID).first()
    if existing:
        return existing, False
    collection = demo_collection()
    nordic_ids = [
        f["properties"]["trailId"]
        for f in collection["features"]
        if osm.CATEGORY["nordic"] in f["properties"].get("categories", [])
    ]
    with transaction.atomic():
        ensure_account(uid=DEMO_OWNER_UID, email=DEMO_OWNER_EMAIL)
        system = create_trail_system(
            name="Lost Trail Powder Mountain (demo)",
            owner_uid=DEMO_OWNER_UID,
            members=[(DEMO_TRUSTEE_UID, "Trustee")],
            collection=collection,
            id=DEMO_SYSTEM_ID,
            description=DESCRIPTION,
            language="en",
            depth_measurement="inches",
            length_measurement="miles",
            temp_measurement="fahrenheit",
            **OSM_TERMS,
            tier=DEMO_TIER,
        )
        _post_updates(system, nordic_ids)
    # Outside the transaction: a provider may be a network call, and one that fails leaves the
    # demo loaded without a snapshot until beat's next collection.
    weather.collect([system])
    return system, True
