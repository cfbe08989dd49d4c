"""Faults on the production topology (gunicorn, Celery worker and beat, PostgreSQL, Redis),
all private to this module: the database restarted under a write load, the broker stopped,
a worker killed in the middle of a fan-out. `make faults` runs them."""

import json
import threading
import time
from collections import Counter

import psycopg
import pytest
import requests

from apikeys.tokens import mint_emulator_token
from tests.integration.test_publishing import trail_statuses
from tests.integration.topology import Topology, wait_until

pytestmark = [pytest.mark.integration, pytest.mark.faults]

SUBSCRIBERS = 6

SETUP = """
import json
from tests.factories import SubscriberFactory, TrailActivityFactory, TrailFactory
from tests.factories import TrailSystemFactory
system = TrailSystemFactory()
trail = TrailFactory(trail_system=system, status="Open")
TrailActivityFactory(trail=trail)
emails = [f"s{n}@faults.test" for n in range(%d)]
for email in emails:
    SubscriberFactory(trail_system=system, email=email, phone="")
print(json.dumps({"system": system.pk, "trail": trail.pk, "owner": system.owner.uid,
                  "emails": emails}))
"""


@pytest.fixture(scope="module")
def topology(tmp_path_factory):
    topology = Topology(tmp_path_factory.mktemp("faults"))
    try:
        topology.start()
        yield topology
    finally:
        topology.stop()


@pytest.fixture(scope="module")
def world(topology):
    world = topology.python(SETUP % SUBSCRIBERS)
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {mint_emulator_token(world['owner'])}"
    world["api"] = session
    return world


def api(world, topology, method: str, path: str, **kwargs) -> requests.Response:
    return world["api"].request(method, f"{topology.base_url}/api/v1{path}", timeout=15, **kwargs)


def query(topology, sql: str, params=()) -> list[tuple]:
    with psycopg.connect(topology.postgres.url) as connection:
        return connection.execute(sql, params).fetchall()


def published_status(topology, world) -> str | None:
    rows = query(
        topology, "SELECT geo_json_path FROM trails_trailsystem WHERE id = %s", [world["system"]]
    )
    if not rows or not rows[0][0]:
        return None
    collection = json.loads((topology.media_root / rows[0][0]).read_text())
    return trail_statuses(collection).get(world["trail"])


def set_status(world, topology, status: str) -> None:
    response = api(world, topology, "PATCH", f"/trails/{world['trail']}", json={"status": status})
    assert response.status_code == 200, response.text


def post_notice(world, topology, description: str, notify: bool) -> requests.Response:
    return api(
        world,
        topology,
        "POST",
        f"/trail-systems/{world['system']}/updates",
        json={"type": "notice", "description": description, "notify": notify},
    )


def new_messages(topology, before: Counter) -> Counter:
    return Counter(topology.smtp.recipients) - before


def each_got_one(topology, world, before: Counter) -> bool:
    return new_messages(topology, before) == Counter(world["emails"])


class WriteLoad:
    """Writers creating updates as fast as the API answers, recording what it acknowledged
    (201 and the new id) and every other answer."""

    def __init__(self, world, topology, writers: int = 2):
        self.world, self.topology = world, topology
        self.acknowledged: list[str] = []
        self.refused: list[tuple[int, str]] = []
        self.stopping = threading.Event()
        self.threads = [threading.Thread(target=self.write, args=(n,)) for n in range(writers)]

    def write(self, writer: int) -> None:
        session = requests.Session()
        session.headers.update(self.world["api"].headers)
        number = 0
        while not self.stopping.is_set():
            number += 1
            response = session.post(
                f"{self.topology.base_url}/api/v1/trail-systems/{self.world['system']}/updates",
                json={"type": "notice", "description": f"load {writer}-{number}"},
                timeout=15,
            )
            if response.status_code == 201:
                self.acknowledged.append(response.json()["id"])
            else:
                self.refused.append((response.status_code, response.text))

    def __enter__(self):
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc_info):
        self.stopping.set()
        for thread in self.threads:
            thread.join(timeout=30)


def test_the_api_answers_503_while_postgres_restarts_and_loses_no_acknowledged_write(
    topology, world
):
    with WriteLoad(world, topology) as load:
        wait_until(lambda: len(load.acknowledged) >= 10, 30, "writes before the restart")
        topology.postgres.stop()
        wait_until(lambda: load.refused, 30, "a refused write")
        readiness = requests.get(f"{topology.base_url}/readyz", timeout=15)
        health = requests.get(f"{topology.base_url}/healthz", timeout=15)
        time.sleep(1)
        topology.postgres.start()
        resumed_from = len(load.acknowledged)
        wait_until(lambda: len(load.acknowledged) >= resumed_from + 10, 30, "writes after it")

    assert health.status_code == 200
    assert readiness.status_code == 503
    assert readiness.json()["failed"] == ["database"]
    for status, body in load.refused:
        assert status == 503, body
        assert json.loads(body)["error"]["code"] == "service_unavailable"
    stored = {
        row[0]
        for row in query(
            topology, "SELECT id FROM updates_update WHERE trail_system_id = %s", [world["system"]]
        )
    }
    assert set(load.acknowledged) <= stored
    assert requests.get(f"{topology.base_url}/readyz", timeout=15).status_code == 200


def test_writes_succeed_while_redis_is_down_and_compiles_and_notifications_catch_up(
    topology, world
):
    set_status(world, topology, "Open")
    wait_until(lambda: published_status(topology, world) == "Open", 30, "first compile")
    before = Counter(topology.smtp.recipients)

    topology.redis.stop()
    try:
        started = time.monotonic()
        set_status(world, topology, "Closed")
        notice = post_notice(world, topology, "Groomer broke down.", notify=True)
        assert notice.status_code == 201, notice.text
        assert time.monotonic() - started < 10
        readiness = requests.get(f"{topology.base_url}/readyz", timeout=15)
        time.sleep(2)  # the fan-out cannot reach the worker
        assert new_messages(topology, before) == Counter()
    finally:
        topology.redis.start()

    assert readiness.status_code == 503 and readiness.json()["failed"] == ["broker"]
    wait_until(lambda: published_status(topology, world) == "Closed", 60, "compile catch-up")
    wait_until(lambda: each_got_one(topology, world, before), 60, "notification catch-up")
    time.sleep(3)  # further sweeps send nothing more
    assert new_messages(topology, before) == Counter(world["emails"])


def test_a_worker_killed_mid_fan_out_leaves_every_subscriber_exactly_one_message(topology, world):
    before = Counter(topology.smtp.recipients)
    topology.smtp.stall_at(len(topology.smtp.recipients) + 3)

    notice = post_notice(world, topology, "Race day: trails close at noon.", notify=True)
    assert notice.status_code == 201, notice.text
    update_id = notice.json()["id"]
    assert topology.smtp.stalled.wait(timeout=60), "the fan-out never reached the mail server"
    topology.worker.kill()  # the third message is out; the worker never learns it
    topology.smtp.release()
    states = dict(
        query(
            topology,
            "SELECT state, count(*) FROM updates_delivery WHERE update_id = %s GROUP BY state",
            [update_id],
        )
    )
    assert states == {"sent": 2, "sending": SUBSCRIBERS - 2}

    topology.worker.start()

    wait_until(lambda: each_got_one(topology, world, before), 90, "recovery after the lease")
    time.sleep(3)  # further sweeps send nothing more
    assert new_messages(topology, before) == Counter(world["emails"])
    rows = query(
        topology,
        "SELECT state, error FROM updates_delivery WHERE update_id = %s",
        [update_id],
    )
    assert sorted(state for state, _ in rows) == ["failed"] + ["sent"] * (SUBSCRIBERS - 1)
    assert all(error.startswith("interrupted") for state, error in rows if state == "failed")
