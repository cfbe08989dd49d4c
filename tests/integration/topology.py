"""The production topology in private processes: PostgreSQL, Redis, gunicorn, a Celery worker,
the webhooks' Celery worker and Celery beat, each of which a fault test may stop, kill or
restart. The shared PostgreSQL and Redis other suites use are never touched; every process
here has its own port and is stopped when the test ends."""

import json
import os
import shutil
import signal
import socket
import socketserver
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from django.conf import settings

from config.celery import app as celery_app
from tests.ports import free_port

PG_BIN = Path("/usr/lib/postgresql/15/bin")


def answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


def wait_until(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise TimeoutError(f"{what} not within {timeout}s")


def procfile_pool(process: str) -> tuple[str, ...]:
    """The pool options (--pool, --concurrency) of the Procfile's line for `process`: the
    suite's and the benches' workers run as production's do."""
    lines = (Path(settings.BASE_DIR) / "Procfile").read_text().splitlines()
    line = next(line for line in lines if line.startswith(f"{process}:"))
    return tuple(word for word in line.split() if word.startswith(("--pool=", "--concurrency=")))


def drop_broker_connections() -> None:
    """After CELERY_BROKER_URL changed: the next task opens a connection to the new broker."""
    celery_app._pool = None
    celery_app.amqp._producer_pool = None


class Load:
    """Threads that send requests until the `with` block ends (each function given runs in
    one of them and stops once `stopping` is set)."""

    def __init__(self, *senders):
        self.stopping = threading.Event()
        self.threads = [threading.Thread(target=sender) for sender in senders]

    def __enter__(self):
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc_info):
        self.stopping.set()
        for thread in self.threads:
            thread.join(timeout=30)


class PrivateRedis:
    """A throwaway redis-server: stopping it is a broker outage that leaves the shared Redis
    alone. No persistence, so queued messages die with it."""

    def __init__(self, port: int):
        self.port = port
        self.url = f"redis://127.0.0.1:{port}/0"
        self.process: subprocess.Popen | None = None

    def answers(self) -> bool:
        return answers(self.port)

    def start(self) -> None:
        assert not self.answers(), f"port {self.port} is taken; a leftover redis-server?"
        self.process = subprocess.Popen(
            [
                "redis-server",
                *("--port", str(self.port), "--bind", "127.0.0.1"),
                *("--save", "", "--appendonly", "no"),
            ],
            stdout=subprocess.DEVNULL,
        )
        wait_until(self.answers, 10, "redis-server")

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)
        wait_until(lambda: not self.answers(), 10, "redis-server stopped")


class PrivatePostgres:
    """A PostgreSQL cluster of its own in a temporary directory, run as the postgres user."""

    def __init__(self, port: int):
        self.port = port
        self.directory = Path(tempfile.mkdtemp(prefix="faults-pg-"))
        self.data = self.directory / "data"
        self.url = f"postgres://postgres@127.0.0.1:{port}/trails"

    def _as_postgres(self, *command: str) -> None:
        subprocess.run(
            ["runuser", "-u", "postgres", "--", *command],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
        )

    def create(self) -> None:
        assert not answers(self.port), f"port {self.port} is taken; a leftover postgres?"
        shutil.chown(self.directory, "postgres")
        self._as_postgres(
            str(PG_BIN / "initdb"),
            *("-D", str(self.data), "-U", "postgres", "-A", "trust", "--no-sync"),
        )
        self.start()
        self._as_postgres(
            str(PG_BIN / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "trails"
        )

    def start(self) -> None:
        options = f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.directory}"
        self._as_postgres(
            str(PG_BIN / "pg_ctl"),
            *("-D", str(self.data), "-o", options, "-l", str(self.directory / "log")),
            *("-w", "start"),
        )

    def stop(self) -> None:
        """A fast shutdown: open sessions are cut, running transactions roll back."""
        if (self.data / "postmaster.pid").exists():
            self._as_postgres(str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", "fast", "stop")

    def destroy(self) -> None:
        self.stop()
        shutil.rmtree(self.directory, ignore_errors=True)


class FakeSmtp:
    """An outside mail server on a local port that records each message it accepts.

    `stall_at(n)`: the n-th message is recorded (it has reached the subscriber) and then
    not acknowledged until `release()`, so a test can kill the sender at that moment.
    """

    def __init__(self, port: int):
        self.port = port
        self.recipients: list[str] = []
        self.stalled = threading.Event()
        self.released = threading.Event()
        self.stall_number = 0
        smtp = self

        class Handler(socketserver.StreamRequestHandler):
            def reply(self, line: str) -> None:
                self.wfile.write(f"{line}\r\n".encode())

            def handle(self) -> None:
                self.reply("220 fake-smtp ready")
                recipients: list[str] = []
                while line := self.rfile.readline():
                    verb = line.decode(errors="replace").strip().split(" ")[0].upper()
                    if verb in ("EHLO", "HELO"):
                        self.reply("250 fake-smtp")
                    elif verb == "RCPT":
                        recipients.append(line.decode().split(":", 1)[1].strip(" <>\r\n"))
                        self.reply("250 OK")
                    elif verb == "DATA":
                        self.reply("354 go on")
                        while self.rfile.readline() not in (b".\r\n", b""):
                            pass
                        if not smtp.accept(recipients):
                            return
                        recipients = []
                        self.reply("250 OK")
                    elif verb == "QUIT":
                        self.reply("221 bye")
                        return
                    else:  # MAIL, RSET, NOOP
                        self.reply("250 OK")

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.lock = threading.Lock()

    def accept(self, recipients: list[str]) -> bool:
        """Record a message; False when the connection is to hang up unacknowledged."""
        with self.lock:
            self.recipients.extend(recipients)
            stall = len(self.recipients) == self.stall_number
        if stall:
            self.stalled.set()
            self.released.wait(timeout=120)
            return False
        return True

    def stall_at(self, number: int) -> None:
        self.stall_number = number

    def release(self) -> None:
        self.released.set()

    def start(self) -> None:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.release()
        self.server.shutdown()
        self.server.server_close()


class Service:
    """One long-running process of the topology, in its own process group so that a kill
    takes its children (gunicorn's and Celery's pool processes) with it."""

    def __init__(self, name: str, command: list[str], env: dict, log_path: Path):
        self.name, self.command, self.env, self.log_path = name, command, env, log_path
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        log = open(self.log_path, "ab")  # noqa: SIM115 - closed with the process
        self.process = subprocess.Popen(
            self.command,
            env=self.env,
            cwd=settings.BASE_DIR,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def kill(self) -> None:
        """SIGKILL to the whole group, as an out-of-memory kill or a lost machine would."""
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)

    def terminate(self) -> None:
        """SIGTERM to the whole group, as a deploy stops it; returns at once."""
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)

    def stop(self) -> None:
        """Terminated, then waited for: 20 s at most, then killed."""
        self.terminate()
        if self.process:
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()


class Topology:
    """gunicorn, a Celery worker and beat on a private PostgreSQL and Redis, configured as
    the production setup of docs/operators/production.md with short sweep intervals and
    delivery lease."""

    def __init__(self, work_dir: Path):
        self.work_dir = work_dir
        self.postgres = PrivatePostgres(free_port())
        self.redis = PrivateRedis(free_port())
        self.smtp = FakeSmtp(free_port())
        self.web_port = free_port()
        self.base_url = f"http://127.0.0.1:{self.web_port}"
        self.media_root = work_dir / "media"
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "SECRET_KEY": "faults-test-secret-key",
            "DATABASE_URL": self.postgres.url,
            "REDIS_URL": self.redis.url,
            "CELERY_QUEUE": "trails",
            "VAR_DIR": str(work_dir / "var"),
            "MEDIA_ROOT": str(self.media_root),
            "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "EMAIL_HOST": "127.0.0.1",
            "EMAIL_PORT": str(self.smtp.port),
            "SMS_BACKEND": "updates.sms.locmem.SmsBackend",
            "COMPILE_SWEEP_SECONDS": "1",
            "NOTIFICATION_SWEEP_SECONDS": "1",
            "NOTIFICATION_SWEEP_AFTER_SECONDS": "3",
            "DELIVERY_LEASE_SECONDS": "10",
            # One outcome recorded at a time: a killed worker leaves exactly one message in doubt.
            "NOTIFICATION_RECORD_EVERY": "1",
            # Webhook retries after 1 s, 3 s, 9 s, ... and swept every second.
            "WEBHOOK_RETRY_SECONDS": "1",
            "WEBHOOK_SWEEP_SECONDS": "1",
            # Riders' alerts: push to the suite's stand-ins on 127.0.0.1 (VAPID keys come
            # from tests.settings), retried after 1 s, 3 s, ... and swept every second.
            "WEB_PUSH_EXTRA_HOSTS": "127.0.0.1",
            "ALERTS_RETRY_SECONDS": "1",
            "ALERTS_SWEEP_SECONDS": "1",
            "LOG_FORMAT": "text",
        }
        self.env.pop("FIREBASE_PROJECT_ID", None)
        self.env.pop("DEBUG", None)
        python = sys.executable
        bin_dir = Path(python).parent
        self.web = self._service(
            "web",
            [
                str(bin_dir / "gunicorn"),
                "config.wsgi",
                *("--workers", "2", "--bind", f"127.0.0.1:{self.web_port}"),
                *("--graceful-timeout", "5"),
                "--no-control-socket",  # the default socket path is shared by every gunicorn
            ],
        )
        self.worker = self._service(
            "worker",
            [
                *(python, "-m", "celery", "-A", "config", "worker"),
                *("--pool=prefork", "--concurrency=2", "--loglevel=INFO"),
                *("--without-gossip", "--without-mingle", "-Q", "trails"),
            ],
        )
        # Webhook attempts on a queue and a worker of their own, as in the Procfile.
        self.webhooks = self._service(
            "webhooks",
            [
                *(python, "-m", "celery", "-A", "config", "worker"),
                *procfile_pool("webhooks"),
                "--loglevel=INFO",
                *("--without-gossip", "--without-mingle", "-Q", "trails-webhooks"),
                *("-n", "webhooks@%h"),
            ],
        )
        # Alerts on a queue and a worker of their own, as in the Procfile.
        self.alerts = self._service(
            "alerts",
            [
                *(python, "-m", "celery", "-A", "config", "worker"),
                *procfile_pool("alerts"),
                "--loglevel=INFO",
                *("--without-gossip", "--without-mingle", "-Q", "trails-alerts"),
                *("-n", "alerts@%h"),
            ],
        )
        self.beat = self._service(
            "beat",
            [
                *(python, "-m", "celery", "-A", "config", "beat", "--loglevel=INFO"),
                *("--schedule", str(work_dir / "beat-schedule")),
            ],
        )

    def _service(self, name: str, command: list[str]) -> Service:
        return Service(name, command, self.env, self.work_dir / f"{name}.log")

    def manage(self, *args: str) -> str:
        result = subprocess.run(
            [sys.executable, "manage.py", *args],
            env=self.env,
            cwd=settings.BASE_DIR,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert result.returncode == 0, result.stderr[-3000:]
        return result.stdout

    def python(self, code: str) -> dict:
        """Run Django code against the topology's database; it prints one JSON object."""
        return json.loads(self.manage("shell", "-c", code).strip().splitlines()[-1])

    def start(self) -> None:
        self.postgres.create()
        self.redis.start()
        self.smtp.start()
        self.manage("migrate", "--no-input")
        for service in (self.web, self.worker, self.webhooks, self.alerts, self.beat):
            service.start()
        wait_until(lambda: answers(self.web_port), 60, "gunicorn")

    def stop(self) -> None:
        """The services told to stop all at once, so that their shutdowns (a Celery worker's
        takes seconds) overlap, then waited for."""
        services = (self.beat, self.alerts, self.webhooks, self.worker, self.web)
        for service in services:
            service.terminate()
        for service in services:
            service.stop()
        self.smtp.stop()
        self.redis.stop()
        self.postgres.destroy()
