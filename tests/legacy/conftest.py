"""A trail system with every kind of trail, point and update the legacy interface shows."""

from datetime import UTC, datetime

import pytest
from django.utils import timezone

from tests.factories import (
    PointFactory,
    TrailActivityFactory,
    TrailFactory,
    TrailSystemFactory,
    line,
)

ALLOWED_ORIGIN = "https://maps.example.org"
CREATED = datetime(2024, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)
WEATHER = {
    "observedAt": "2026-01-15T14:00:00.000Z",
    "temperature": -4.5,
    "apparentTemperature": -9.1,
    "humidity": 82,
    "windSpeed": 14.2,
    "windGusts": 31.0,
    "windDirection": 290,
    "precipitation": 0.4,
    "snowfall": 0.6,
    "cloudCover": 100,
    "weatherCode": 71,
    "description": "Light snow",
    "isDay": True,
    "source": "open-meteo",
}
ACTIVITY_TOTALS = [
    {
        "value": "nordic-classic",
        "label": "Classic skiing",
        "iconClass": "icon-nordic",
        "totalTrails": 3,
        "openTrails": 1,
        "cautionTrails": 1,
        "closedTrails": 1,
        "totalDistance": 6.0,
        "openDistance": 2.0,
        "cautionDistance": 2.5,
        "closedDistance": 1.5,
    }
]
PUBLISHED_UPDATES = {
    "notice": [
        {
            "id": "n1",
            "description": "Parking lot B is closed.",
            "severity": "warning",
            "linkUrl": "https://example.org/b",
            "expirationDate": "2026-01-16T14:00:00.000Z",
            "updatedOn": "2026-01-15T13:00:00.500Z",
        }
    ],
    "snowReport": [
        {
            "id": "s1",
            "baseDepth": 30,
            "twentyFourHours": 5,
            "lastSnowDate": "2026-01-14T00:00:00.000Z",
            "lastSnowTime": "06:30",
            "expirationDate": "2026-01-16T14:00:00.000Z",
            "updatedOn": "2026-01-15T13:00:00.000Z",
        }
    ],
}


@pytest.fixture(autouse=True)
def _allowlist(settings):
    settings.LEGACY_ALLOWED_ORIGINS = [ALLOWED_ORIGIN]
    settings.PUBLIC_BASE_URL = "https://trails.example.org"


def line_3d(n: int = 4) -> dict:
    return {
        "type": "LineString",
        "coordinates": [[-113.95 + i * 0.001, 45.69, 1500.0 + i] for i in range(n)],
    }


@pytest.fixture
def system(db):
    """Open, Caution, Closed, None-status, lift and hidden trails; one trashed; points of
    every sort, one trashed; notices and a snow report published on the system."""
    ts = TrailSystemFactory(
        name="Bluebird Nordic",
        description="Groomed daily.",
        phone_number="+1 406 555 0100",
        website="https://bluebird.example.org",
        language="en",
        subscription="pro",
        total_trails=3,
        open_trails=1,
        caution_trails=1,
        closed_trails=1,
        total_distance=6.0,
        open_distance=2.0,
        caution_distance=2.5,
        activity_totals=ACTIVITY_TOTALS,
        published_updates=PUBLISHED_UPDATES,
        geo_json_path="published/bluebird-20260115-abc123.geojson",
        weather=WEATHER,
        weather_updated_on=datetime(2026, 1, 15, 14, 2, tzinfo=UTC),
        related_trail_systems=[{"tsId": "other-ts", "name": "Whitefish Trails"}],
        created_on=CREATED,
        updated_by="uid-admin",
    )
    trails = {
        "open": TrailFactory(trail_system=ts, name="Meadow", status="Open", order=2),
        "caution": TrailFactory(
            trail_system=ts,
            name="Ridge",
            status="Caution",
            order=-1,
            difficulty="diamond",
            categories=["north"],
            geometry=line_3d(),
            elevations=[1500.0 + i for i in range(50)],
        ),
        "closed": TrailFactory(trail_system=ts, name="Creek", status="Closed", order=0),
        "derived": TrailFactory(
            trail_system=ts,
            name="Loop",
            status="None",
            order=1,
            geometry={"type": "MultiLineString", "coordinates": [line()["coordinates"]] * 2},
        ),
        "lift": TrailFactory(trail_system=ts, name="Chair 1", type="Lift", order=3),
        "hidden": TrailFactory(trail_system=ts, name="Staff", hidden=True, order=4),
        "trashed": TrailFactory(trail_system=ts, name="Old", order=-5, trashed_on=timezone.now()),
    }
    TrailActivityFactory(trail=trails["caution"], value="nordic-classic", status="Caution")
    TrailActivityFactory(
        trail=trails["caution"], value="snowshoeing", status="Open", difficulty="square", position=1
    )
    TrailActivityFactory(trail=trails["derived"], value="nordic-skate", status="Closed")
    points = {
        "parking": PointFactory(trail_system=ts, marker_class="parking", created_on=CREATED),
        "wait": PointFactory(trail_system=ts, marker_class="wait-time", wait_time=15),
        "cam": PointFactory(
            trail_system=ts, marker_class="web-cam", web_cam_url="https://cam.example.org/1"
        ),
        "dining": PointFactory(
            trail_system=ts, marker_class="dining", dining_options={"hours": "9-5"}
        ),
        "trashed": PointFactory(trail_system=ts, trashed_on=timezone.now()),
    }
    ts.fixture_trails = trails
    ts.fixture_points = points
    return ts
