import socket
from urllib.parse import urlparse

import pytest
from django.conf import settings
from django.contrib.staticfiles.handlers import StaticFilesHandler
from django.core.servers.basehttp import ThreadedWSGIServer
from django.db.backends.postgresql.operations import DatabaseOperations
from django.test.testcases import LiveServerThread
from rest_framework.test import APIClient

from apikeys.tokens import mint_emulator_token
from public import live
from tests.factories import create_api_key
from tests.published_files import invalid_files

pytest_plugins = ["tests.browser", "tests.embedded", "tests.webhooks.receiver"]

START_HINT = {
    "PostgreSQL": "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start",
    "Redis": 'redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no',
}


class NoDelayWSGIServer(ThreadedWSGIServer):
    """Sends each answer at once: wsgiref writes the headers and the body apart, and Nagle's
    algorithm held the body until the client's delayed ACK, 40 ms per request (the bounded
    schemathesis run took 210 s with that wait, about 55 s without)."""

    def get_request(self):
        connection, address = super().get_request()
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return connection, address


# Every live server of the suite (pytest-django's live_server, service_url, the schema-driven
# run's) is a LiveServerThread, which builds its server from this class attribute.
LiveServerThread.server_class = NoDelayWSGIServer


_truncate_tables = DatabaseOperations.sql_flush
# What migrations wrote and post_migrate would write again after every flush (content types,
# permissions): kept, so that it only finds them there.
_MIGRATED_ROWS = {"django_content_type", "auth_permission"}


def _delete_rows(self, style, tables, *, reset_sequences=False, allow_cascade=False):
    """How a transactional test empties the database after itself: DELETE in one
    transaction (foreign keys are checked at its commit) instead of one TRUNCATE of every
    table, which makes new files for each table and index: 0.25 to 1.2 s per test on the
    2-core machine, against 15 ms for the few rows a test writes. The tables end empty all
    the same, but for the content types and permissions, which post_migrate writes again
    after a flush (now it finds them); with `reset_sequences` they are truncated as Django
    does."""
    if reset_sequences or not tables:
        return _truncate_tables(
            self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
        )
    return [
        "SET CONSTRAINTS ALL DEFERRED",
        *(
            f"DELETE FROM {self.quote_name(table)}"
            for table in tables
            if table not in _MIGRATED_ROWS
        ),
    ]


DatabaseOperations.sql_flush = _delete_rows


def _reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=2):
            return True
    except OSError:
        return False


def pytest_sessionstart(session):
    """Fail at once, never skip, when the services the suite needs are down."""
    db = settings.DATABASES["default"]
    redis = urlparse(settings.CELERY_BROKER_URL)
    services = {
        "PostgreSQL": (db.get("HOST") or "127.0.0.1", int(db.get("PORT") or 5432)),
        "Redis": (redis.hostname or "127.0.0.1", redis.port or 6379),
    }
    down = [name for name, (host, port) in services.items() if not _reachable(host, port)]
    if down:
        hints = "\n".join(f"  {name}: {START_HINT[name]}" for name in down)
        pytest.exit(f"Not reachable: {', '.join(down)}. Start them with:\n{hints}", returncode=3)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    """The tests marked `slow` first, each kind keeping its order: pytest-xdist hands the
    parallel pass's tests out in this order (its groups first, the largest first), so a
    minute-long test starts at the beginning instead of running alone at the end while the
    other processes have nothing left.

    And the `xdist_group` of each test in its ID, which is how `--dist loadgroup` keeps a
    group in one process: pytest-xdist 3.8 writes it where pytest 9.2 no longer reads it, so
    every test went to any process (pytest-xdist issue 1386). Done here after pytest-xdist,
    only where its own suffix is missing."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
    if not getattr(config.option, "loadgroup", False):  # set in pytest-xdist's processes
        return
    for item in items:
        groups = sorted(
            {
                str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
                for mark in item.iter_markers("xdist_group")
            }
        )
        suffix = "@" + "_".join(groups)
        if groups and not item.nodeid.endswith(suffix):
            item._id = type(item._id).parse(item.nodeid + suffix)


@pytest.fixture(autouse=True)
def _media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture(autouse=True)
def _live_map_hub_stopped():
    """The live map streams' hub and the process's listener (started by a test that opened a
    stream) hold database sessions: stopped after the test, before its database is flushed
    or dropped. Nothing to do for the others."""
    yield
    live.stop()


@pytest.fixture
def service_url():
    """The service on a free port as production runs it: unlike pytest-django's live_server,
    whose test handler answers /media/ itself, its own view serves the published files
    (publishing.media). Its requests see committed rows only."""
    thread = LiveServerThread(
        "127.0.0.1", static_handler=lambda media: StaticFilesHandler(media.application)
    )
    thread.daemon = True
    thread.start()
    thread.is_ready.wait()
    if thread.error:
        raise thread.error
    yield f"http://127.0.0.1:{thread.port}"
    thread.terminate()


@pytest.fixture
def api() -> APIClient:
    return APIClient()


def token_for(user, **kwargs) -> str:
    return mint_emulator_token(user.uid, user.email or None, **kwargs)


@pytest.fixture
def client_for():
    """An API client that sends the given user's ID token (or a given bearer credential)."""

    def make(user=None, *, credential: str | None = None) -> APIClient:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {credential or token_for(user)}")
        return client

    return make


@pytest.fixture
def key_client_for(client_for):
    """An API client that sends a new API key of the given user."""

    def make(user, **key_fields) -> APIClient:
        _, plaintext = create_api_key(user, **key_fields)
        return client_for(credential=plaintext)

    return make


@pytest.fixture
def system():
    """A trail system whose owner (its Administrator) is `system.owner`."""
    from tests.factories import TrailSystemFactory  # models load once pytest-django set up

    return TrailSystemFactory()


@pytest.fixture
def manager(system, client_for) -> APIClient:
    """An ID-token client of the owner of `system`."""
    return client_for(system.owner)


@pytest.fixture(autouse=True)
def published_files_are_valid():
    """Every map file a test publishes holds to the published file's JSON Schema."""
    invalid_files.clear()
    yield
    assert not invalid_files, "published map files not valid against their schema:\n" + "\n".join(
        invalid_files
    )
