"""Two passes over one trail at the same moment leave one grooming update on it."""

import threading

import pytest
from django.db import connection

from core.actors import Actor, Via
from grooming.models import GroomingPass
from grooming.services import record_grooming_track
from grooming.tracks import Track
from tests.factories import TrailFactory, TrailSystemFactory
from tests.grooming.geo import path
from updates.models import Update


@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="SQLite's in-memory test database cannot be shared between threads",
)
@pytest.mark.django_db(transaction=True)
def test_simultaneous_passes_do_not_pile_up_updates():
    system = TrailSystemFactory()
    trail = TrailFactory(
        trail_system=system,
        geometry={"type": "LineString", "coordinates": path([(0, 0), (2000, 0)], step=100)},
    )
    track = Track([path([(-50, 0), (2050, 0)])], None)
    start = threading.Barrier(4)
    errors = []

    def groom() -> None:
        try:
            start.wait()
            record_grooming_track(system=system, track=track, actor=Actor("g", Via.ID_TOKEN))
        except Exception as error:  # reported below, so a failing thread fails the test
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=groom) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert GroomingPass.objects.count() == 4
    assert Update.objects.filter(source="grooming", trails=trail).count() == 1
