"""Fixtures of the notification tests; test modules load them with
``pytest_plugins = ["tests.updates.notify_fixtures"]``."""

import pytest

from tests.fake_http import FakeServer
from tests.updates.notify_support import FakeSmtpServer, FakeTwilioBackend, twilio_created
from updates import sms


@pytest.fixture
def sms_outbox(settings):
    settings.SMS_BACKEND = "updates.sms.locmem.SmsBackend"
    sms.outbox.clear()
    yield sms.outbox
    sms.outbox.clear()


@pytest.fixture
def fake_twilio(settings):
    """Yields a function taking a responder; returns the started fake Twilio API."""
    servers = []

    def start(responder=twilio_created) -> FakeServer:
        server = FakeServer(responder).__enter__()
        servers.append(server)
        FakeTwilioBackend.base_url = server.url
        settings.SMS_BACKEND = "tests.updates.notify_support.FakeTwilioBackend"
        settings.SMS_FROM_NUMBER = "+15005550006"
        return server

    yield start
    for server in servers:
        server.__exit__(None, None, None)


@pytest.fixture
def fake_smtp(settings):
    def start(refused: set[str] = frozenset()) -> FakeSmtpServer:
        server = FakeSmtpServer(set(refused))
        settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
        settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", server.port
        settings.EMAIL_USE_TLS = False
        started.append(server)
        return server

    started: list[FakeSmtpServer] = []
    yield start
    for server in started:
        server.shutdown()
        server.server_close()
