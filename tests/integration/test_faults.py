"""Faults on the production topology (gunicorn, Celery worker and beat, PostgreSQL, Redis),
all private to this module: the database restarted under a write load, the broker stopped,
a worker killed in the middle of a fan-out, slow webhook receivers, a push service that
hangs. `make faults` runs them."""

import functools
import json
import threading
import time
from collections import Counter
from contextlib import ExitStack

import psycopg
import pytest
import redis
import requests

from apikeys.tokens import mint_emulator_token
from tests.alerts.push_service import Subscription
from tests.integration.test_publishing import trail_statuses
from tests.integration.topology import Load, Topology, wait_until

# In one process of `make test`'s parallel pass, sharing their topology: their bounds (10 s to
# 90 s) leave room for the other processes' load. The noisy neighbours' test compares
# latencies: alone, after that pass (`serial`), on a topology of its own.
pytestmark = [pytest.mark.integration, pytest.mark.faults, pytest.mark.xdist_group("faults")]

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
    return published_statuses(topology, world["system"]).get(world["trail"])


def published_statuses(topology, system_id: str) -> dict[str, str]:
    """The trails' statuses in the system's published file (none before its first)."""
    sql = "SELECT geo_json_path FROM trails_trailsystem WHERE id = %s"
    rows = query(topology, sql, [system_id])
    if not rows or not rows[0][0]:
        return {}
    return trail_statuses(json.loads((topology.media_root / rows[0][0]).read_text()))


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


class WriteLoad(Load):
    """Writers creating updates as fast as the API answers, recording what it acknowledged
    (201 and the new id) and every other answer."""

    def __init__(self, world, topology, writers: int = 2):
        self.world, self.topology = world, topology
        self.acknowledged: list[str] = []
        self.refused: list[tuple[int, str]] = []
        super().__init__(*(functools.partial(self.write, n) for n in range(writers)))

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


NOISY_SETUP = """
import json
from core.actors import Actor, Via
from tests.factories import SubscriberFactory, TrailActivityFactory, TrailFactory
from tests.factories import TrailSystemFactory
from webhooks.services import create_endpoint
actor = Actor("faults", Via.WEB_APP)
system = TrailSystemFactory()
trails = []
for _ in range(%(trails)d):
    trail = TrailFactory(trail_system=system, status="Open")
    TrailActivityFactory(trail=trail)
    trails.append(trail.pk)
emails = [f"a{n}@noisy.test" for n in range(3)]
for email in emails:
    SubscriberFactory(trail_system=system, email=email, phone="")
neighbours = []
for url in %(urls)r:
    other = TrailSystemFactory()
    neighbours.append(TrailFactory(trail_system=other, status="Open").pk)
    create_endpoint(system=other, url=url, events=["trail.status_changed"], actor=actor)
print(json.dumps({"system": system.pk, "owner": system.owner.uid, "trails": trails,
                  "emails": emails, "neighbours": neighbours}))
"""
NEIGHBOURS_CHANGE = """
import json
from django.db import transaction
from core.actors import Actor, Via
from trails.models import Trail
from trails.services import change_trail
for trail in Trail.objects.filter(pk__in=%r):
    with transaction.atomic():
        change_trail(trail=trail, status="Closed", actor=Actor("faults", Via.WEB_APP))
print(json.dumps({}))
"""
WRITES_PER_SECOND = 5
MEASURED_SECONDS = 12


class Publications:
    """System A's trails written in turn, WRITES_PER_SECOND a second, each flipping one trail
    (Open, Closed, Open ...), and a watcher of A's published file: for each write, the time
    from sending it to the first published file that shows it."""

    def __init__(self, topology, noisy):
        self.topology, self.noisy = topology, noisy
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Bearer {mint_emulator_token(noisy['owner'])}"
        self.writes: list[tuple[str, str, float]] = []
        self.published: dict[int, float] = {}
        self.lock = threading.Lock()

    def _watch(self, stop: threading.Event) -> None:
        seen = None
        with psycopg.connect(self.topology.postgres.url, autocommit=True) as connection:
            while not stop.is_set():
                (path,) = connection.execute(
                    "SELECT geo_json_path FROM trails_trailsystem WHERE id = %s",
                    [self.noisy["system"]],
                ).fetchone()
                now = time.monotonic()
                if path and path != seen:
                    seen = path
                    collection = json.loads((self.topology.media_root / path).read_text())
                    self._record(trail_statuses(collection), now)
                time.sleep(0.05)

    def _record(self, statuses: dict[str, str], now: float) -> None:
        with self.lock:
            for number, (trail, status, sent) in enumerate(self.writes):
                if number not in self.published and sent <= now and statuses[trail] == status:
                    self.published[number] = now

    def latencies(self, seconds: float) -> list[float]:
        """Write for `seconds`; the write -> published file time of each write."""
        trails = self.noisy["trails"]
        first = len(self.writes)
        stop = threading.Event()
        watcher = threading.Thread(target=self._watch, args=(stop,))
        watcher.start()
        started = time.monotonic()
        try:
            for n in range(int(seconds * WRITES_PER_SECOND)):
                number = first + n
                trail = trails[number % len(trails)]
                status = "Closed" if (number // len(trails)) % 2 == 0 else "Open"
                with self.lock:
                    self.writes.append((trail, status, time.monotonic()))
                response = self.session.patch(
                    f"{self.topology.base_url}/api/v1/trails/{trail}",
                    json={"status": status},
                    timeout=15,
                )
                assert response.status_code == 200, response.text
                time.sleep(max(0.0, started + (n + 1) / WRITES_PER_SECOND - time.monotonic()))
            wait_until(
                lambda: all(n in self.published for n in range(first, len(self.writes))),
                30,
                "every write published",
            )
        finally:
            stop.set()
            watcher.join(timeout=10)
        return [self.published[n] - self.writes[n][2] for n in range(first, len(self.writes))]


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, round(0.95 * len(ordered)) - 1)]


def notice_reaches_every_subscriber(topology, noisy, session) -> float:
    """A notify notice posted on A; returns how long until each subscriber had it."""
    before = Counter(topology.smtp.recipients)
    posted = time.monotonic()
    notice = session.post(
        f"{topology.base_url}/api/v1/trail-systems/{noisy['system']}/updates",
        json={"type": "notice", "description": "Race day: trails close at noon.", "notify": True},
        timeout=15,
    )
    assert notice.status_code == 201, notice.text
    wait_until(
        lambda: new_messages(topology, before) == Counter(noisy["emails"]),
        60,
        "the notice at every subscriber of A",
    )
    return time.monotonic() - posted


def nothing_left_to_compile(topology) -> bool:
    return query(
        topology, "SELECT count(*) FROM publishing_compilerequest WHERE done_on IS NULL"
    ) == [(0,)]


@pytest.mark.serial  # measures time
def test_slow_webhook_receivers_of_other_systems_hold_up_neither_publishing_nor_notices(
    topology, receiver
):
    """20 receivers that trickle a byte every 2 s and 5 that hang, on 25 other systems. The
    same measure (a notice, then A's writes) runs before them, with them, and after them: the
    baseline is the mean of before and after, so a machine that got busier or quieter
    meanwhile does not decide the outcome."""
    tricklers = [receiver(trickle=2.0) for _ in range(20)]
    hangers = [receiver(delay=600) for _ in range(5)]
    slow = tricklers + hangers
    urls = [each.url for each in slow]
    noisy = topology.python(NOISY_SETUP % {"trails": 25, "urls": urls})
    publications = Publications(topology, noisy)
    publications.latencies(2)  # the first compiles of A, before measuring

    notice_reaches_every_subscriber(topology, noisy, publications.session)
    before = publications.latencies(MEASURED_SECONDS)
    # The other systems' changes (their compiles done: only their webhooks are left).
    topology.python(NEIGHBOURS_CHANGE % noisy["neighbours"])
    # Slow endpoints hold half the webhook threads at most: 25 of them are tried in turn.
    wait_until(lambda: all(each.received for each in slow), 60, "every slow receiver engaged")
    wait_until(lambda: nothing_left_to_compile(topology), 30, "the other systems compiled")
    noticed_in = notice_reaches_every_subscriber(topology, noisy, publications.session)
    with_them = publications.latencies(MEASURED_SECONDS)
    retried = sum(len(each.received) for each in slow)

    for each in slow:  # the receivers answer again
        each.trickle = each.delay = 0
    wait_until(
        lambda: (
            query(
                topology,
                "SELECT count(*) FROM webhooks_webhookdelivery WHERE state = 'succeeded'",
            )[0][0]
            == len(slow)
        ),
        90,
        "every slow endpoint's message delivered",
    )
    for each in slow:
        ids = each.ids()
        assert len(set(ids)) == 1, ids  # its one message, under its first webhook-id
    notice_reaches_every_subscriber(topology, noisy, publications.session)
    after = publications.latencies(MEASURED_SECONDS)

    baseline = (p95(before) + p95(after)) / 2
    assert p95(with_them) <= 1.5 * baseline, (p95(before), p95(with_them), p95(after))
    assert noticed_in < 60
    assert retried > len(slow)  # they were retried meanwhile, and failed


SLOW_ENDPOINTS_SETUP = """
import json
from core.actors import Actor, Via
from tests.factories import TrailFactory, TrailSystemFactory
from webhooks.services import create_endpoint
actor = Actor("faults", Via.WEB_APP)
def system_with(urls):
    system = TrailSystemFactory()
    trail = TrailFactory(trail_system=system, status="Open")
    for url in urls:
        create_endpoint(system=system, url=url, events=["trail.status_changed"], actor=actor)
    return {"system": system.pk, "trail": trail.pk, "owner": system.owner.uid}
print(json.dumps({"noisy": [system_with(urls) for urls in %(noisy)r],
                  "quiet": system_with([%(quiet)r])}))
"""
REMOVE_ENDPOINTS = """
import json
from core.actors import Actor, Via
from webhooks.models import WebhookEndpoint
from webhooks.services import delete_endpoint
for endpoint in WebhookEndpoint.objects.filter(trail_system_id__in=%r):
    delete_endpoint(endpoint=endpoint, actor=Actor("faults", Via.WEB_APP))
print(json.dumps({}))
"""
# Answered 200 after this long: just under an attempt's 5 s deadline.
SLOW_ANSWER_SECONDS = 4.5
# The webhook queue's documented bound (docs/operators/fairness.md): its alert is above
# 2 x WEBHOOK_SLOTS (8 sending tasks at most, and the timers of retries and rests).
WEBHOOK_QUEUE_BOUND = 16


class InBackground:
    """`run` in a thread of its own while the `with` block lasts; it ends when `stopping` is
    set."""

    def __init__(self):
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run)

    def run(self) -> None:
        raise NotImplementedError

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc_info):
        self.stopping.set()
        self.thread.join(timeout=30)


class StatusFlipper(InBackground):
    """A system's trail flipped Open, Closed, Open ... every `every` seconds through the API,
    as its Administrator; `sent` holds when each change was sent (time.monotonic())."""

    def __init__(self, topology, system: dict, every: float):
        super().__init__()
        self.topology, self.system, self.every = topology, system, every
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Bearer {mint_emulator_token(system['owner'])}"
        self.sent: list[float] = []
        self.refused: list[str] = []  # every answer but a 200
        self.late = 0  # writes not answered within 15 s (a busy machine), sent again

    def run(self) -> None:
        started, sent = time.monotonic(), None
        while not self.stopping.is_set():
            status = "Closed" if len(self.sent) % 2 == 0 else "Open"
            sent = sent or time.monotonic()  # a late write's time is its first sending's
            try:
                response = self.session.patch(
                    f"{self.topology.base_url}/api/v1/trails/{self.system['trail']}",
                    json={"status": status},
                    timeout=15,
                )
            except requests.Timeout:
                self.late += 1
                continue
            if response.status_code != 200:
                self.refused.append(response.text)
                return
            self.sent.append(sent)
            sent = None
            next_at = started + len(self.sent) * self.every
            self.stopping.wait(max(0.0, next_at - time.monotonic()))


class QueueWatch(InBackground):
    """The longest the webhook queue (a Redis list) got while it ran, read twice a second."""

    def __init__(self, topology):
        super().__init__()
        self.topology = topology
        self.longest = 0

    def run(self) -> None:
        client = redis.Redis.from_url(self.topology.redis.url)
        while not self.stopping.wait(0.5):
            self.longest = max(self.longest, client.llen("trails-webhooks"))


def quiet_systems_latencies(topology, receiver, noisy_endpoints: list[int]) -> dict:
    """Systems with `noisy_endpoints[n]` endpoints each answering 200 after 4.5 s, a change a
    second on each; after 15 s of that, another system with one quick endpoint changes every
    2 s for 40 s. Returns the time from each of its changes to its webhook's arrival (None:
    not arrived 60 s after the last change) and the longest the webhook queue got."""
    slow = receiver(delay=SLOW_ANSWER_SECONDS)
    quick = receiver()
    urls = [
        [f"{slow.url}/{n}/{m}" for m in range(count)] for n, count in enumerate(noisy_endpoints)
    ]
    world = topology.python(SLOW_ENDPOINTS_SETUP % {"noisy": urls, "quiet": quick.url})
    systems = [each["system"] for each in world["noisy"]] + [world["quiet"]["system"]]
    try:
        with QueueWatch(topology) as queue:
            with ExitStack() as stack:
                noisy = [
                    stack.enter_context(StatusFlipper(topology, system, 1.0))
                    for system in world["noisy"]
                ]
                time.sleep(15)
                with StatusFlipper(topology, world["quiet"], 2.0) as quiet:
                    time.sleep(40)
            changes = len(quiet.sent)
            deadline = time.monotonic() + 60
            while len(quick.received) < changes and time.monotonic() < deadline:
                time.sleep(0.2)
        arrived = [request.at for request in quick.received]
        latencies = [
            arrived[n] - sent if n < len(arrived) else None for n, sent in enumerate(quiet.sent)
        ]
        return {
            "refused_writes": [answer for each in [*noisy, quiet] for answer in each.refused],
            "late_writes": sum(each.late for each in [*noisy, quiet]),
            "latencies": latencies,
            "longest_queue": queue.longest,
            "slow_requests": len(slow.received),
        }
    finally:
        topology.python(REMOVE_ENDPOINTS % systems)


def assert_served_in_turn(outcome: dict) -> None:
    arrived = [latency for latency in outcome["latencies"] if latency is not None]
    summary = {
        "changes": len(outcome["latencies"]),
        "arrived": len(arrived),
        "p50": arrived and sorted(arrived)[len(arrived) // 2],
        "p95": arrived and p95(arrived),
        "max": arrived and max(arrived),
        "longest_queue": outcome["longest_queue"],
        "slow_requests": outcome["slow_requests"],
        "refused_writes": outcome["refused_writes"],
        "late_writes": outcome["late_writes"],
    }
    print(summary)  # the figures of docs/developers/benchmarks.md (pytest -s shows them)
    assert summary["refused_writes"] == [], summary  # every system's writes are answered
    assert len(arrived) == len(outcome["latencies"]), summary
    assert p95(arrived) <= 5.0, summary
    assert outcome["longest_queue"] <= WEBHOOK_QUEUE_BOUND, summary


@pytest.mark.serial  # measures time
def test_60_endpoints_slow_on_200_on_three_systems_leave_another_systems_webhook_on_time(
    topology, receiver
):
    assert_served_in_turn(quiet_systems_latencies(topology, receiver, [20, 20, 20]))


@pytest.mark.serial  # measures time
def test_20_endpoints_slow_on_200_on_one_system_leave_another_systems_webhook_on_time(
    topology, receiver
):
    assert_served_in_turn(quiet_systems_latencies(topology, receiver, [20]))


PUSH_SETUP = """
import json
from alerts.services import follow
from core.actors import Actor, Via
from tests.factories import TrailFactory, TrailSystemFactory
from webhooks.services import create_endpoint
hung = TrailSystemFactory()
hung_trail = TrailFactory(trail_system=hung, status="Open")
for subscription in %(hung)r:
    follow(system=hung, fields={"channel": "push", "subscription": subscription,
                                "rules": [{"trailId": None, "on": ["closes"]}]})
quick = TrailSystemFactory()
trails = [TrailFactory(trail_system=quick, status="Open", order=n) for n in range(%(trails)d)]
create_endpoint(system=quick, url=%(hook)r, events=["trail.status_changed"],
                actor=Actor("faults", Via.WEB_APP))
print(json.dumps({"hung": {"system": hung.pk, "trail": hung_trail.pk, "owner": hung.owner.uid},
                  "quick": {"system": quick.pk, "trails": [t.pk for t in trails],
                            "owner": quick.owner.uid}}))
"""
# Each trail followed by a rider of its own, whose endpoint ends with the trail's id.
FOLLOW_EACH_TRAIL = """
import json
from alerts.services import follow
from trails.models import TrailSystem
system = TrailSystem.objects.get(pk=%(system)r)
for trail_id, subscription in %(followers)r:
    follow(system=system, fields={"channel": "push", "subscription": subscription,
                                  "rules": [{"trailId": trail_id, "on": ["closes"]}]})
print(json.dumps({}))
"""
# The changes measured before the push service hangs, while it hangs, and after it answers.
PUSH_CHANGES_PER_PHASE = 6


class PushServiceOrigin:
    """A receiver as a push service: subscriptions name endpoints under its origin."""

    def __init__(self, receiver):
        self.url = f"http://127.0.0.1:{receiver.server.server_port}"


def closing_latencies(topology, quick: dict, trails: list[str], push, hook) -> dict:
    """Each trail closed in turn through the API, one a second at most; for each, the time
    from sending the write to its rider's push request (each trail has a follower of its own,
    so none is coalesced), to its webhook, and to the first published file that shows it."""
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {mint_emulator_token(quick['owner'])}"
    latencies = {"push": [], "webhook": [], "published": []}
    for trail in trails:
        pushes, hooks = len(push.received), len(hook.received)
        sent = time.monotonic()
        response = session.patch(
            f"{topology.base_url}/api/v1/trails/{trail}", json={"status": "Closed"}, timeout=15
        )
        assert response.status_code == 200, response.text
        published = None
        deadline = sent + 60
        while time.monotonic() < deadline:
            if published is None and published_statuses(topology, quick["system"]).get(trail) == (
                "Closed"
            ):
                published = time.monotonic()
            if published and len(push.received) > pushes and len(hook.received) > hooks:
                break
            time.sleep(0.05)
        assert published and len(push.received) > pushes and len(hook.received) > hooks, trail
        assert push.received[pushes].path.endswith(f"/push/{trail}")
        latencies["push"].append(push.received[pushes].at - sent)
        latencies["webhook"].append(hook.received[hooks].at - sent)
        latencies["published"].append(published - sent)
        time.sleep(max(0.0, sent + 1.0 - time.monotonic()))
    return latencies


@pytest.mark.serial  # measures time
def test_a_push_service_that_hangs_delays_no_other_alert_publishing_or_webhook(topology, receiver):
    """20 riders of one system on a push service that takes every request and never answers
    (each attempt gives up after 5 s, and its compartment backs off and tries again); another
    system's riders on another push service, with a webhook. That system's trails close one
    at a time before the hang, during it and after it: its alerts, webhooks and published
    files come as quickly during the hang as around it (the baseline is the mean of before
    and after, so a machine that got busier or quieter meanwhile does not decide it)."""
    hanging, quick_push, hook = receiver(delay=600), receiver(), receiver()
    trail_count = 3 * PUSH_CHANGES_PER_PHASE
    hung = [Subscription.to(PushServiceOrigin(hanging)).json() for _ in range(20)]
    world = topology.python(PUSH_SETUP % {"hung": hung, "trails": trail_count, "hook": hook.url})
    trails = world["quick"]["trails"]
    followers = [(t, Subscription.to(PushServiceOrigin(quick_push), t).json()) for t in trails]
    topology.python(
        FOLLOW_EACH_TRAIL % {"system": world["quick"]["system"], "followers": followers}
    )
    phases = [trails[n::3] for n in range(3)]

    before = closing_latencies(topology, world["quick"], phases[0], quick_push, hook)
    hung_session = requests.Session()
    hung_session.headers["Authorization"] = f"Bearer {mint_emulator_token(world['hung']['owner'])}"
    closed = hung_session.patch(
        f"{topology.base_url}/api/v1/trails/{world['hung']['trail']}",
        json={"status": "Closed"},
        timeout=15,
    )
    assert closed.status_code == 200, closed.text
    hanging.wait_for(1, 30)  # its first alert is in the hanging service's hands
    during = closing_latencies(topology, world["quick"], phases[1], quick_push, hook)
    tried = len(hanging.wait_for(2, 30))  # it was tried again meanwhile, and hung again
    hanging.delay = 0  # it answers again
    hanging.wait_for(tried + 20, 90)  # its riders get their alert after all
    after = closing_latencies(topology, world["quick"], phases[2], quick_push, hook)

    figures = {
        kind: {
            "before": p95(before[kind]),
            "during": p95(during[kind]),
            "after": p95(after[kind]),
        }
        for kind in before
    }
    print("a push service hangs:", figures, "attempts on it:", tried)
    for kind, p in figures.items():
        baseline = (p["before"] + p["after"]) / 2
        assert p["during"] <= 1.5 * baseline + 0.5, (kind, figures)


BIG_FAN_OUT = 2000
FAN_OUT_SETUP = """
import json
from tests.factories import TrailSystemFactory
from updates.models import Subscriber
big, other = TrailSystemFactory(), TrailSystemFactory()
Subscriber.objects.bulk_create(
    [Subscriber(trail_system=big, email=f"big{n}@fan-out.test") for n in range(%d)]
)
Subscriber.objects.create(trail_system=other, email="rider@other.test")
print(json.dumps({name: {"system": system.pk, "owner": system.owner.uid}
                  for name, system in (("big", big), ("other", other))}))
"""
# The documented bound (docs/operators/fairness.md): another system's notice reaches its
# subscribers within this many seconds of its post, whatever fan-out is under way.
OTHER_NOTICE_BOUND = 15.0


def notify(topology, system: dict, description: str) -> float:
    """A notify notice posted on the system as its Administrator; returns when it was posted."""
    posted = time.monotonic()
    response = requests.post(
        f"{topology.base_url}/api/v1/trail-systems/{system['system']}/updates",
        json={"type": "notice", "description": description, "notify": True},
        headers={"Authorization": f"Bearer {mint_emulator_token(system['owner'])}"},
        timeout=15,
    )
    assert response.status_code == 201, response.text
    return posted


@pytest.mark.serial  # measures time
def test_one_systems_big_fan_out_does_not_hold_another_systems_notice_behind_it(topology):
    world = topology.python(FAN_OUT_SETUP % BIG_FAN_OUT)
    before = Counter(topology.smtp.recipients)

    def sent_to_big() -> int:
        return sum(
            count
            for address, count in new_messages(topology, before).items()
            if address.endswith("@fan-out.test")
        )

    notify(topology, world["big"], "Race day: every trail closes at noon.")
    wait_until(lambda: sent_to_big() >= 100, 60, "the big fan-out under way")
    posted = notify(topology, world["other"], "Ridge Loop groomed.")
    wait_until(
        lambda: new_messages(topology, before)["rider@other.test"] == 1,
        60,
        "the other system's notice at its subscriber",
    )
    noticed_in = time.monotonic() - posted
    figures = {"other notice (s)": round(noticed_in, 2), "big fan-out sent by then": sent_to_big()}
    print(figures)  # pytest -s shows them
    assert noticed_in <= OTHER_NOTICE_BOUND, figures
    # A message recorded at a time (the topology's NOTIFICATION_RECORD_EVERY): slow, but whole.
    wait_until(lambda: sent_to_big() == BIG_FAN_OUT, 600, "the big fan-out done")
    assert max(new_messages(topology, before).values()) == 1  # each message once
