"""Test settings: the production settings module on PostgreSQL, never SQLite."""

import os
import tempfile
from urllib.parse import urlsplit, urlunsplit

# The developer's .env (written by `make run`) never reaches the tests.
os.environ["ENV_FILE"] = ""
os.environ.setdefault("SECRET_KEY", "tests-only-secret-key")
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/trails")
# Webhook receivers of the tests listen on 127.0.0.1 (a test turns the check back on).
os.environ.setdefault("WEBHOOK_ALLOW_PRIVATE_TARGETS", "1")
# The tests run the stream process's application in their own process: at their priority.
os.environ.setdefault("STREAM_NICENESS", "0")
# Push services of the tests (stand-ins) listen on 127.0.0.1.
os.environ.setdefault("WEB_PUSH_EXTRA_HOSTS", "127.0.0.1")
os.environ.setdefault("VAR_DIR", os.path.join(tempfile.gettempdir(), "trails-test-var"))
# `make test` runs the suite in several processes (pytest-xdist: gw0, gw1, ...). Each has its
# own test database (pytest-django), its own var/ and its own Redis database, the base one
# (REDIS_URL's, else 15) minus its number: queues, caches and locks never cross.
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")


def _worker_redis(url: str) -> str:
    parts = urlsplit(url)
    database = (int(parts.path.strip("/") or 0) - int(WORKER.removeprefix("gw") or 0)) % 16
    return urlunsplit(parts._replace(path=f"/{database}"))


if WORKER and os.environ.get("TESTS_WORKER_ENVIRONMENT") != WORKER:
    # Once per worker: the processes its tests start inherit the result.
    os.environ["TESTS_WORKER_ENVIRONMENT"] = WORKER
    os.environ["VAR_DIR"] = f"{os.environ['VAR_DIR']}-{WORKER}"
    if os.environ.get("REDIS_URL"):
        # Read by the settings below (the cache) too.
        os.environ["REDIS_URL"] = _worker_redis(os.environ["REDIS_URL"])

if not os.environ.get("VAPID_PRIVATE_KEY"):
    # One pair for the suite and the processes it starts (they inherit the environment).
    from alerts.vapid import generate_keys

    os.environ["VAPID_PRIVATE_KEY"], os.environ["VAPID_PUBLIC_KEY"] = generate_keys()

from config.settings import *  # noqa: E402, F403
from config.settings import VAR_DIR  # noqa: E402

# Unit tests run tasks in-process after commit, as the embedded default does; the
# integration tests switch to the real broker and a real worker process.
REDIS_URL = os.environ.get("REDIS_URL") or _worker_redis("redis://127.0.0.1:6379/15")
CELERY_BROKER_URL = REDIS_URL
CELERY_TASK_ALWAYS_EAGER = True
MEDIA_ROOT = VAR_DIR / "media"
# Local disk, checking every map file the suite publishes against its schema
# (tests/published_files.py).
if STORAGE_BACKEND == "local":  # noqa: F405
    STORAGES["default"] = {"BACKEND": "tests.published_files.SchemaCheckedStorage"}  # noqa: F405
# Writes in transaction-wrapped tests never commit, so never notify: read the row version on
# every request (tests/integration turn listening on).
LEGACY_LISTEN = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# The suite's service sits behind one trusted proxy (tests/core/test_trusted_proxies.py sends
# from it and from other loopback addresses); the test client's 127.0.0.1 is not it.
TRUSTED_PROXIES = ["127.0.0.9"]
