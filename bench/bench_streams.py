"""Bounds and memory of the live map's stream process (uvicorn, config.asgi), on the production
topology as the Procfile runs it under honcho (bench_live's Topology).

- Memory: the stream process's RSS idle (after one stream opened and closed), with STREAMS
  streams held (20 from each loopback address, as riders behind NATs), and after they close;
  the memory per open stream; its threads with them held; the streams it may hold
  (STREAM_MAX_CONNECTIONS' default, from its open-file limit).
- One address: ATTACK stream requests from one address, at a steady pace, while a rider of
  another address holds a stream and a write goes through the API: the streams that address
  got, how fast the rest were refused, how long the rider's change took, and the legacy
  /ts rate meanwhile beside the rate without the attack.

Needs Redis (REDIS_URL, default redis://127.0.0.1:6379/15) and wrk.
"""

import asyncio
import os
import socket
import statistics
import threading
import time
from pathlib import Path

from bench.bench_live import (
    _FORK,
    HOST,
    STREAM_PORT,
    StreamClients,
    Topology,
    _send,
    _set_up,
    demo_topology,
    legacy_rate,
)
from bench.common import percentile
from core.open_files import streams_for_open_files

STREAMS = int(os.environ.get("BENCH_STREAMS", "5000"))
ATTACK = 5000
ATTACK_PER_SECOND = 350  # the attack lasts as long as the legacy rounds beside it
ATTACKER, RIDER = "127.2.0.1", "127.3.0.1"
SETTLE_SECONDS = 12  # after the streams closed: the hub gives memory back within 5 s
TARGETS = {"after / idle": 1.10, "held from one address": 20, "change (s)": 2.0}


def _status(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    raise KeyError(field)


def _rss_mb(pid: int) -> float:
    return _status(pid, "VmRSS") / 1024


def _open_files(pid: int) -> int:
    return len(list(Path(f"/proc/{pid}/fd").iterdir()))


def _open_file_limit(pid: int) -> int:
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            return int(line.split()[3])
    raise KeyError("Max open files")


def _hold(system_id: str, count: int) -> StreamClients:
    clients = StreamClients(system_id, count)
    clients.start()
    started = time.monotonic()
    while clients.opened.value + clients.failed.value < count:
        if time.monotonic() - started > 180:
            break
        time.sleep(0.2)
    return clients


def _release(clients: StreamClients) -> None:
    clients.stop.set()
    clients.join(timeout=60)


def _memory(pid: int, system_id: str) -> dict:
    _release(_hold(system_id, 1))  # the hub and the listener started, as after any visit
    time.sleep(2)
    idle, idle_files = _rss_mb(pid), _open_files(pid)
    clients = _hold(system_id, STREAMS)
    time.sleep(2)
    held, failed = clients.opened.value, clients.failed.value
    with_streams, threads = _rss_mb(pid), _status(pid, "Threads")
    _release(clients)
    closing = time.monotonic()
    while _open_files(pid) > idle_files + 5 and time.monotonic() - closing < 60:
        time.sleep(0.5)
    time.sleep(SETTLE_SECONDS)
    after = _rss_mb(pid)
    limit = _open_file_limit(pid)
    return {
        "streams the process may hold (STREAM_MAX_CONNECTIONS' default)": (
            f"{streams_for_open_files(limit):,} (open-file limit {limit:,})"
        ),
        "streams opened and held (20 per address)": held,
        "streams refused or failed": failed,
        "stream process RSS idle (MB)": round(idle, 1),
        f"stream process RSS with {held:,} streams (MB)": round(with_streams, 1),
        "memory per open stream (KB)": round((with_streams - idle) * 1024 / max(held, 1), 1),
        f"stream process threads with {held:,} streams": threads,
        f"stream process RSS {SETTLE_SECONDS} s after the last closed (MB)": round(after, 1),
        f"after / idle (target <= {TARGETS['after / idle']:.2f})": f"{after / idle:.2f}",
    }


class Attacker(_FORK.Process):
    """ATTACK stream requests from one address at a steady pace; holds what it is given."""

    def __init__(self, system_id: str):
        super().__init__(daemon=True)
        self.request = f"GET /map/{system_id}/events HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode()
        self.done = _FORK.Value("i", 0)
        self.held = _FORK.Value("i", 0)
        self.refusals = _FORK.Array("d", ATTACK)  # seconds from connect to the answer's head
        self.refused = _FORK.Value("i", 0)
        self.stop = _FORK.Event()

    def run(self) -> None:
        # On a real attack this client's CPU is the attacker's; on this one machine it runs as
        # nice as it may, so that what the legacy rate loses is the server's refusals.
        os.nice(19)
        asyncio.run(self._attack())

    async def _one(self) -> None:
        started = time.monotonic()
        try:
            reader, writer = await asyncio.open_connection(
                HOST, STREAM_PORT, local_addr=(ATTACKER, 0)
            )
            writer.write(self.request)
            head = await reader.readuntil(b"\r\n\r\n")
        except OSError:
            return
        finally:
            with self.done.get_lock():
                self.done.value += 1
        if b" 200 " in head.split(b"\r\n", 1)[0]:
            with self.held.get_lock():
                self.held.value += 1
            while await reader.read(65536):
                pass
            return
        with self.refused.get_lock():
            self.refusals[self.refused.value] = time.monotonic() - started
            self.refused.value += 1
        writer.close()

    async def _attack(self) -> None:
        tasks = []
        for _ in range(ATTACK):
            tasks.append(asyncio.create_task(self._one()))
            await asyncio.sleep(1 / ATTACK_PER_SECOND)
        while not self.stop.is_set():
            await asyncio.sleep(0.2)
        for task in tasks:
            task.cancel()


class Rider(threading.Thread):
    """One stream from another address, read until a `published` event."""

    def __init__(self, system_id: str):
        super().__init__(daemon=True)
        self.system_id = system_id
        self.status = b""
        self.live = threading.Event()
        self.told = threading.Event()

    def run(self) -> None:
        with socket.create_connection((HOST, STREAM_PORT), source_address=(RIDER, 0)) as rider:
            rider.settimeout(60)
            request = f"GET /map/{self.system_id}/events HTTP/1.1\r\nHost: {HOST}\r\n\r\n"
            rider.sendall(request.encode())
            received = b""
            while b"\r\n\r\n" not in received:
                received += rider.recv(65536)
            self.status = received.split(b"\r\n", 1)[0]
            self.live.set()
            while b"event: published" not in received:
                chunk = rider.recv(65536)
                if not chunk:
                    return
                received += chunk
            self.told.set()


def _one_address(topology: Topology, system_id: str, legacy_id: str, key: str) -> dict:
    from trails.models import Trail  # Django is set up by the runner

    without, _ = legacy_rate(topology, legacy_id, warm_up=True)
    attacker = Attacker(system_id)
    attacker.start()
    try:
        time.sleep(1)
        with_attack, _ = legacy_rate(topology, legacy_id)
        rider = Rider(system_id)
        rider.start()
        rider.live.wait(10)
        time.sleep(0.5)  # the hub has read the file the rider started from
        trail = Trail.objects.filter(trail_system_id=system_id, hidden=False).first()
        status = "Closed" if trail.status != "Closed" else "Open"
        _send("PATCH", f"/api/v1/trails/{trail.pk}", key, {"status": status})
        answered = time.monotonic()
        rider.told.wait(10)
        change = time.monotonic() - answered if rider.told.is_set() else None
        while attacker.done.value < ATTACK and attacker.is_alive():
            time.sleep(0.2)
        refusals = sorted(attacker.refusals[: attacker.refused.value])
        held, refused = attacker.held.value, attacker.refused.value
    finally:
        attacker.stop.set()
        attacker.join(timeout=60)
    return {
        "stream requests from one address": ATTACK,
        f"streams it got (target <= {TARGETS['held from one address']})": held,
        "refused (429)": refused,
        "refusal, connect to answer, p50 / p95 (ms)": (
            f"{1000 * statistics.median(refusals):.1f} / {1000 * percentile(refusals, 0.95):.1f}"
            if refusals
            else "none"
        ),
        "another address's rider: its stream": rider.status.decode(),
        f"another address's rider: write answered to the change (s) (target <= "
        f"{TARGETS['change (s)']})": round(change, 3) if change is not None else "never",
        "legacy /ts requests/s without the attack": round(without),
        "legacy /ts requests/s during it": round(with_attack),
        "legacy /ts during it, share of without (target >= 90%)": f"{with_attack / without:.0%}",
    }


def run() -> dict[str, dict]:
    results = {}
    with demo_topology("bench-streams") as (topology, system, legacy_id, key):
        stream_pid = topology.pid_of("uvicorn")
        results[f"Live map: stream process memory, {STREAMS:,} streams and after"] = {
            "set-up": _set_up(),
            **_memory(stream_pid, system.pk),
        }
        results[f"Live map: {ATTACK:,} stream requests from one address"] = {
            "set-up": _set_up(),
            **_one_address(topology, system.pk, legacy_id, key),
        }
    return results
