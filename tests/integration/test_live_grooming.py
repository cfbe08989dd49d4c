"""Live grooming in the production topology: a real track's positions posted by the three
tracker protocols, the measurement and compile in a real Celery worker, and the sweep loop
that beat (or, on the embedded default, `make run`) keeps going."""

import subprocess
import sys
import time

import pytest
from django.core.cache import cache

from core.actors import Actor, Via
from grooming.models import GroomingSession
from grooming.services import record_grooming_track
from grooming.tracks import parse_gpx
from tests.conftest import token_for
from tests.factories import UserFactory, zone_at_midday
from tests.grooming.replay import (
    as_gpx,
    big_loop,
    blue_hills_system,
    groomed_in_file,
    replay,
    set_up_before,
)
from tests.integration.conftest import terminate, wait_for, worker_environment
from trails.models import TrailSystem

pytestmark = pytest.mark.integration

WITHIN_SECONDS = 60
SWEEP_SECONDS = 15  # as beat's default GROOMING_SWEEP_SECONDS


@pytest.fixture
def sweep_loop(transactional_db, settings, tmp_path):
    """`manage.py sweep_grooming_sessions --every 15`, the loop `make run` starts."""
    log = open(tmp_path / "sweep.log", "ab")  # noqa: SIM115 - closed with the process
    process = subprocess.Popen(
        [sys.executable, "manage.py", "sweep_grooming_sessions", "--every", str(SWEEP_SECONDS)],
        env=worker_environment(settings.MEDIA_ROOT),
        cwd=settings.BASE_DIR,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    yield process
    terminate(process)
    log.close()


@pytest.mark.slow
def test_a_replayed_track_is_groomed_in_the_file_and_the_read_route_within_a_minute(
    celery_worker, sweep_loop, client
):
    cache.clear()  # the rate limits' counts
    owner = UserFactory()
    system = blue_hills_system(owner)
    other = blue_hills_system(owner, name="Blue Hills B")  # the same ground, another system
    TrailSystem.objects.filter(pk__in=[system.pk, other.pk]).update(time_zone=zone_at_midday())
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token_for(owner)}"}
    created = client.post(
        f"/api/v1/trail-systems/{system.pk}/trackers",
        {"name": "PistenBully"},
        content_type="application/json",
        **headers,
    ).json()
    wait_for(lambda: TrailSystem.objects.get(pk=system.pk).geo_json_path, timeout=60)

    points = big_loop()
    set_up_before(created["id"], points)
    expected = {
        trail.trail_id
        for trail in record_grooming_track(
            system=system,
            track=parse_gpx(as_gpx(points)),
            actor=Actor("someone", Via.ID_TOKEN),
            dry_run=True,
        ).trails
    }
    assert expected
    # The machine's pace, compressed: the whole loop in about 30 s.
    for start in range(0, len(points), 10):
        assert set(replay(client, created["secret"], points[start : start + 10])) == {200}
        time.sleep(1)
    last_sent = time.monotonic()

    wait_for(lambda: groomed_in_file(system.pk) == expected, timeout=WITHIN_SECONDS)

    def read_route() -> set[str]:
        document = client.get(f"/api/v1/trail-systems/{system.pk}/grooming", **headers).json()
        return {trail["trailId"] for trail in document["trails"] if trail["groomedToday"]}

    assert read_route() == expected
    assert time.monotonic() - last_sent < WITHIN_SECONDS
    assert GroomingSession.objects.get().ended_on is None  # before the session ends
    assert groomed_in_file(other.pk) == set()
