"""Scheduled changes applied by the real thing: Celery beat sending its pass every second
(SCHEDULE_SWEEP_SECONDS=1) to a real worker over a real Redis. A change is applied within a
minute of its time; one due while beat or every worker was down is applied once they return."""

import subprocess
import sys
import time
from datetime import datetime, timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from core.actors import Actor, Via
from schedules.models import Outcome, ScheduleRun
from schedules.services import create_schedule
from tests.factories import TrailFactory, TrailSystemFactory
from tests.integration.conftest import Worker, terminate, wait_for, worker_environment
from trails.models import StatusChange, Trail
from trails.timezones import zone_of

pytestmark = pytest.mark.integration

SWEEP_SECONDS = 1


class Beat:
    """`celery beat` with its schedule file in the test's directory."""

    def __init__(self, tmp_path, media_root):
        self.tmp_path, self.media_root = tmp_path, media_root
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        log = open(self.tmp_path / "beat.log", "ab")  # noqa: SIM115 - closed with the process
        self.process = subprocess.Popen(
            [
                *(sys.executable, "-m", "celery", "-A", "config", "beat", "--loglevel=INFO"),
                *("--schedule", str(self.tmp_path / "beat-schedule")),
            ],
            env={
                **worker_environment(self.media_root),
                "SCHEDULE_SWEEP_SECONDS": str(SWEEP_SECONDS),
            },
            cwd=settings.BASE_DIR,
            stdout=log,
            stderr=subprocess.STDOUT,
        )

    def stop(self) -> None:
        terminate(self.process)


@pytest.fixture
def beat(broker, transactional_db, tmp_path, settings):
    beat = Beat(tmp_path, settings.MEDIA_ROOT)
    yield beat
    beat.stop()


@pytest.fixture
def trail(transactional_db):
    system = TrailSystemFactory(time_zone="America/Denver")
    return TrailFactory(trail_system=system, status="Open", name="Race Course")


def close_in(trail, seconds: float) -> datetime:
    """A one-off closure of the trail, due `seconds` from now (to the second); its due time."""
    zone = zone_of(trail.trail_system)
    due = (timezone.now() + timedelta(seconds=seconds)).replace(microsecond=0)
    create_schedule(
        system=trail.trail_system,
        trail_ids=[trail.pk],
        status="Closed",
        repeat="once",
        starts_at=due.astimezone(zone).replace(tzinfo=None),
        actor=Actor("manager-uid", Via.ID_TOKEN),
    )
    return due


def status(trail) -> str:
    return Trail.objects.get(pk=trail.pk).status


def wait_until(moment: datetime) -> None:
    time.sleep(max((moment - timezone.now()).total_seconds(), 0))


def applied_once(trail) -> None:
    """Beat's later passes change nothing: one run, one recorded change."""
    time.sleep(4 * SWEEP_SECONDS)
    assert ScheduleRun.objects.filter(outcome=Outcome.APPLIED).count() == 1
    changes = StatusChange.objects.filter(trail=trail, via=Via.SCHEDULE, activity="")
    assert list(changes.values_list("old_value", "new_value")) == [("Open", "Closed")]


def test_beat_and_a_worker_apply_a_due_change_within_a_minute(celery_worker, beat, trail):
    beat.start()
    due = close_in(trail, 4)
    wait_for(lambda: status(trail) == "Closed", timeout=60 + 5)
    run = ScheduleRun.objects.get()
    assert run.due_at == due
    assert timedelta(0) <= run.recorded_on - due < timedelta(seconds=60)
    applied_once(trail)


def test_a_change_due_while_beat_was_stopped_is_applied_once_when_it_returns(
    celery_worker, beat, trail
):
    due = close_in(trail, 2)
    wait_until(due + timedelta(seconds=3))
    assert status(trail) == "Open"  # nothing ran at its time
    beat.start()
    wait_for(lambda: status(trail) == "Closed", timeout=30)
    assert ScheduleRun.objects.get().recorded_on > due + timedelta(seconds=3)
    applied_once(trail)


def test_a_change_due_while_no_worker_ran_is_applied_once_when_one_starts(
    broker, beat, trail, tmp_path, settings
):
    beat.start()
    due = close_in(trail, 2)
    wait_until(due + timedelta(seconds=4))  # beat's passes meanwhile wait in the queue
    assert status(trail) == "Open"
    worker = Worker(settings.MEDIA_ROOT, tmp_path / "worker.log")
    try:
        worker.start()
        wait_for(lambda: status(trail) == "Closed", timeout=30)
        applied_once(trail)
    finally:
        worker.stop()
