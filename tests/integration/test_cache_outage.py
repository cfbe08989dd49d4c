"""Redis stopped for 15 s under tracker and report traffic, on the production topology
(gunicorn, Celery worker and beat; issue 40 item 2 and issue 42 item 1): no answer is 500;
every position answered 200 and every report answered 201 is stored once; any other answer is
503 with Retry-After; the reports' alert e-mails and webhooks go out within 30 s of Redis
returning. Redis, PostgreSQL and every process here are private to this module."""

import time
from collections import Counter

import pytest
import requests

from tests.integration.test_faults import query
from tests.integration.topology import Load, Topology, wait_until
from tests.webhooks.receiver import Receiver

pytestmark = [pytest.mark.integration, pytest.mark.faults]

OUTAGE_SECONDS = 15
AFTER_RETURN_SECONDS = 30
ADMINISTRATOR = "crew@outage.test"

SETUP = """
import json
from core.actors import Actor, Via
from grooming.trackers import create_tracker
from reports.models import ReportAlert
from tests.factories import TrailFactory, TrailSystemFactory, UserFactory, line
from webhooks.services import create_endpoint
administrator = UserFactory(email=%(administrator)r)
system = TrailSystemFactory(owner=administrator)
TrailFactory(trail_system=system, geometry=line(-113.95, 45.69))
ReportAlert.objects.create(trail_system=system, user=administrator)
actor = Actor(administrator.uid, Via.ID_TOKEN)
tracker = create_tracker(system=system, name="PistenBully", actor=actor)
create_endpoint(system=system, url=%(hook)r, events=["report.created"], actor=actor)
print(json.dumps({"system": system.pk, "secret": tracker.secret}))
"""


@pytest.fixture(scope="module")
def hook():
    receiver = Receiver()
    yield receiver
    receiver.close()


@pytest.fixture(scope="module")
def topology(tmp_path_factory):
    topology = Topology(tmp_path_factory.mktemp("cache-outage"))
    # The webhook receiver is on 127.0.0.1; each report comes from an address of its own.
    topology.env |= {"WEBHOOK_ALLOW_PRIVATE_TARGETS": "1", "TRUSTED_PROXIES": "127.0.0.1"}
    try:
        topology.start()
        yield topology
    finally:
        topology.stop()


class Traffic(Load):
    """A tracker posting a position a second and riders filing a report a second, each
    answer recorded with what it acknowledged."""

    def __init__(self, topology: Topology, world: dict):
        self.topology, self.world = topology, world
        self.answers: list[requests.Response] = []
        self.positions: list[int] = []  # the timestamps answered 200
        self.reports: list[str] = []  # the ids answered 201
        self.started = int(time.time())
        super().__init__(self.track, self.report)

    def track(self) -> None:
        session = requests.Session()
        while not self.stopping.is_set():
            timestamp = int(time.time())
            response = session.get(
                f"{self.topology.base_url}/track/osmand",
                params={
                    "id": self.world["secret"],
                    # Northwards at 5.5 m/s: a groomer's pace (a faster jump is dropped).
                    "lat": 45.69 + (timestamp - self.started) * 0.00005,
                    "lon": -113.95,
                    "timestamp": timestamp,
                },
                timeout=15,
            )
            self.answers.append(response)
            if response.status_code == 200:
                self.positions.append(timestamp)
            self.stopping.wait(max(0.0, timestamp + 1.05 - time.time()))

    def report(self) -> None:
        session = requests.Session()
        number = 0
        while not self.stopping.is_set():
            number += 1
            response = session.post(
                f"{self.topology.base_url}/report/{self.world['system']}",
                {"category": "fallenTree", "lat": "45.6905", "lng": "-113.9495"},
                headers={
                    "Accept": "application/json",
                    "X-Forwarded-For": f"198.51.{number // 250}.{number % 250 + 1}",
                },
                timeout=15,
            )
            self.answers.append(response)
            if response.status_code == 201:
                self.reports.append(response.json()["id"])
            self.stopping.wait(1.0)


def test_with_redis_stopped_positions_and_reports_are_kept_once_and_their_work_follows(
    topology, hook
):
    world = topology.python(SETUP % {"administrator": ADMINISTRATOR, "hook": hook.url})

    with Traffic(topology, world) as traffic:
        time.sleep(3)
        topology.redis.stop()
        reports_before, positions_before = len(traffic.reports), len(traffic.positions)
        time.sleep(OUTAGE_SECONDS)
        reports_during = traffic.reports[reports_before:]
        positions_during = traffic.positions[positions_before:]
        topology.redis.start()
        back = time.monotonic()
        time.sleep(3)

    statuses = Counter(answer.status_code for answer in traffic.answers)
    assert set(statuses) <= {200, 201, 503}, statuses
    assert all(a.headers.get("Retry-After") for a in traffic.answers if a.status_code == 503)
    assert reports_during and positions_during, "nothing was kept while Redis was down"
    stored_reports = [
        row[0]
        for row in query(
            topology, "SELECT id FROM reports_report WHERE trail_system_id = %s", [world["system"]]
        )
    ]
    assert sorted(stored_reports) == sorted(traffic.reports)
    stored_positions = query(topology, "SELECT recorded_at FROM grooming_trackerposition")
    assert len(stored_positions) == len(traffic.positions)
    assert {int(row[0].timestamp()) for row in stored_positions} == set(traffic.positions)

    everything = len(traffic.reports)
    wait_until(
        lambda: (
            topology.smtp.recipients.count(ADMINISTRATOR) >= everything
            and len(hook.received) >= everything
        ),
        AFTER_RETURN_SECONDS,
        "every report's alert and webhook",
    )
    assert time.monotonic() - back < AFTER_RETURN_SECONDS
    time.sleep(2)  # a sweep more sends nothing twice
    assert topology.smtp.recipients.count(ADMINISTRATOR) == everything
    assert len({request.webhook_id for request in hook.received}) == everything
