"""SMS pumping against the production server: what a sign-up flood costs, and what riders see.

gunicorn (config.wsgi, 2 sync workers, the rate limits and SMS budgets in Redis as in
production) serves one trail system with the default budget of 100 confirmation SMS a day.
For 60 seconds, attackers post sign-ups with a new mobile number each, from 256 client
addresses (real loopback source addresses, 127.x.y.z, so the server sees 256 peers), over
8 connections at a time. Meanwhile a rider signs up by e-mail about every second from an
address of their own. Figures: the SMS the flood got sent (at most the budget), the answers
it got, and the riders' answer times. SMS and e-mail go to files, which are counted.
"""

import http.client
import os
import random
import re
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlencode

from bench.common import start_gunicorn

HOST = "127.0.0.1"
PORT = int(os.environ.get("BENCH_ABUSE_PORT", "8141"))
WORKERS = 2
FLOOD_SECONDS = float(os.environ.get("BENCH_ABUSE_SECONDS", "60"))
ATTACKER_ADDRESSES = 256
CONNECTIONS = 8
RIDER_EVERY_SECONDS = 1.0
BUDGET = 100  # the system's default smsConfirmationsPerDay


class Client:
    """One client address: its own source address, CSRF cookie and form token."""

    def __init__(self, address: str, system_id: str):
        self.address, self.system_id = address, system_id
        self.cookie = self.token = ""

    def _request(self, method: str, path: str, body: str = "") -> tuple[int, str, float]:
        connection = http.client.HTTPConnection(
            HOST, PORT, timeout=60, source_address=(self.address, 0)
        )
        headers = {"Cookie": self.cookie} if self.cookie else {}
        if body:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        started = time.monotonic()
        try:
            connection.request(method, path, body=body or None, headers=headers)
            response = connection.getresponse()
            text = response.read().decode()
            cookie = response.getheader("Set-Cookie") or ""
        finally:
            connection.close()
        if "csrftoken=" in cookie:
            self.cookie = cookie.split(";", 1)[0]
        return response.status, text, time.monotonic() - started

    def open_map(self) -> None:
        """What a browser loads before the form: the page, with the form's token."""
        _, page, _ = self._request("GET", f"/map/{self.system_id}")
        self.token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)

    def sign_up(self, **contact: str) -> tuple[int, float]:
        """Post the map's form (the map is opened first, once)."""
        if not self.token:
            self.open_map()
        form = urlencode({"csrfmiddlewaretoken": self.token, "email": "", "phone": "", **contact})
        status, _, seconds = self._request("POST", f"/subscribe/{self.system_id}", form)
        return status, seconds


def _random_addresses(count: int, second_octet: int) -> list[str]:
    """Loopback addresses new to the rate limits (their counts of the last hour)."""
    base = random.randrange(0, 256 - count // 256 - 1)
    return [f"127.{second_octet}.{base + n // 254}.{n % 254 + 1}" for n in range(count)]


def _mobile_number() -> str:
    return f"+1406{random.randint(200, 999)}{random.randint(0, 9999):04d}"


def _seed() -> str:
    from trails.models import TrailSystem

    system = TrailSystem.objects.create(name="Bench Abuse", lat=45.69, lng=-113.95)
    return system.pk


def _start_server(outbox: Path) -> subprocess.Popen:
    return start_gunicorn(
        HOST,
        PORT,
        WORKERS,
        {
            "SMS_BACKEND": "updates.sms.filebased.SmsBackend",
            "SMS_FILE_PATH": str(outbox / "sms"),
            "EMAIL_BACKEND": "django.core.mail.backends.filebased.EmailBackend",
            "EMAIL_FILE_PATH": str(outbox / "mail"),
            # The site's budget is shared by every run of the day: the system's is measured.
            "SMS_CONFIRMATIONS_PER_DAY": "1000000",
        },
    )


def _flood(system_id: str) -> tuple[Counter, list[tuple[int, float]]]:
    attackers = [Client(a, system_id) for a in _random_addresses(ATTACKER_ADDRESSES, 1)]
    rider_addresses = iter(_random_addresses(int(FLOOD_SECONDS / RIDER_EVERY_SECONDS) + 10, 2))
    answers: Counter = Counter()
    riders: list[tuple[int, float]] = []
    lock = threading.Lock()
    deadline = time.monotonic() + FLOOD_SECONDS

    def attack(number: int) -> None:
        sent = number
        while time.monotonic() < deadline:
            client = attackers[sent % ATTACKER_ADDRESSES]
            sent += CONNECTIONS
            try:
                status, _ = client.sign_up(phone=_mobile_number())
            except OSError:
                status = "connection error"
            with lock:
                answers[status] += 1

    def ride() -> None:
        number = 0
        while time.monotonic() < deadline:
            number += 1
            client = Client(next(rider_addresses), system_id)
            client.open_map()
            riders.append(client.sign_up(email=f"rider{number}@example.com"))
            time.sleep(RIDER_EVERY_SECONDS)

    threads = [threading.Thread(target=attack, args=(n,)) for n in range(CONNECTIONS)]
    threads.append(threading.Thread(target=ride))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers, riders


def run() -> dict[str, dict]:
    system_id = _seed()
    outbox = Path(tempfile.mkdtemp(prefix="bench-abuse-"))
    server = _start_server(outbox)
    try:
        answers, riders = _flood(system_id)
    finally:
        server.terminate()
        server.wait(timeout=30)
    sms_sent = len(list((outbox / "sms").glob("*.txt"))) if (outbox / "sms").exists() else 0
    shutil.rmtree(outbox, ignore_errors=True)
    times = sorted(seconds * 1000 for _, seconds in riders)
    return {
        "abuse: 60-second sign-up flood, 256 client addresses, one system": {
            "sign-ups posted by the flood": sum(answers.values()),
            "answers (status: count)": ", ".join(
                f"{k}: {v}" for k, v in sorted(answers.items(), key=str)
            ),
            "confirmation SMS sent": sms_sent,
            "the system's budget": BUDGET,
            "SMS sent within the budget": "yes" if sms_sent <= BUDGET else "NO",
            "legitimate e-mail sign-ups (one a second)": len(riders),
            "of which answered 200": sum(1 for status, _ in riders if status == 200),
            "their answer time p50 (ms)": round(statistics.median(times), 1) if times else None,
            "their answer time p95 (ms)": round(times[int(0.95 * (len(times) - 1))], 1)
            if times
            else None,
            "their answer time max (ms)": round(times[-1], 1) if times else None,
        }
    }
