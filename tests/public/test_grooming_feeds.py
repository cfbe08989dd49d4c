"""/feeds/<id>/grooming.json and /feeds/<id>/groomers.json without a browser: buckets in the
system's zone, and nothing of a machine unless the system shows groomers live."""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone

from core.actors import Actor, Via
from grooming.selectors import freshness_bucket
from grooming.sessions import Position, receive_positions
from grooming.trackers import create_tracker
from tests.factories import TrailFactory, TrailSystemFactory

pytestmark = pytest.mark.django_db

DENVER = ZoneInfo("America/Denver")
NOW = datetime(2026, 1, 20, 6, 0, tzinfo=UTC)  # 23:00 on the 19th in Denver


@pytest.mark.parametrize(
    ("local", "bucket"),
    [
        (datetime(2026, 1, 19, 0, 5), "today"),
        (datetime(2026, 1, 18, 23, 55), "1-3"),
        (datetime(2026, 1, 16, 12, 0), "1-3"),
        (datetime(2026, 1, 15, 12, 0), "4-6"),
        (datetime(2026, 1, 12, 12, 0), "7-10"),
        (datetime(2026, 1, 9, 12, 0), "7-10"),
        (datetime(2026, 1, 5, 12, 0), "11-14"),
        (datetime(2026, 1, 4, 12, 0), "older"),
    ],
)
def test_buckets_count_calendar_days_in_the_systems_zone(local, bucket):
    assert freshness_bucket(local.replace(tzinfo=DENVER), DENVER, NOW) == bucket


def test_groomers_are_listed_only_where_the_system_shows_them(client):
    actor = Actor("groomer", Via.ID_TOKEN)
    shown = TrailSystemFactory(groomers_live=True)
    hidden = TrailSystemFactory()
    for system in (shown, hidden):
        TrailFactory(trail_system=system)
        tracker = create_tracker(system=system, name="PistenBully", actor=actor).tracker
        receive_positions(
            tracker=tracker,
            positions=[Position(-113.95, 45.69, timezone.now() - timedelta(seconds=5))],
        )
    listed = client.get(f"/feeds/{shown.pk}/groomers.json").json()["groomers"]
    assert [(g["name"], g["lat"], g["lng"]) for g in listed] == [("PistenBully", 45.69, -113.95)]
    assert client.get(f"/feeds/{hidden.pk}/groomers.json").json() == {
        "trailSystemId": hidden.pk,
        "groomers": [],
    }
    assert client.get("/feeds/nope/groomers.json").status_code == 404
