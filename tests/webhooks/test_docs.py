"""The receiver that docs/developers/webhooks.md shows works as pasted: run as its own process,
it verifies the service's deliveries with the secret shown, prints each change once (a
delivery sent again is ignored) and refuses a request signed with another secret."""

import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.conf import settings
from django.db import transaction
from django.utils import timezone
from standardwebhooks import Webhook

from core.actors import Actor, Via
from tests.factories import TrailFactory
from tests.ports import free_port
from trails.services import change_trail
from webhooks import delivery, services
from webhooks.models import WebhookDelivery
from webhooks.sending import headers_for

pytestmark = pytest.mark.django_db

PAGE = Path(settings.BASE_DIR) / "docs" / "developers" / "webhooks.md"
RECEIVER = re.compile(r"```python\n(# receiver\.py.*?)```", re.S)
ACTOR = Actor("owner", Via.WEB_APP)


@pytest.fixture
def documented_receiver(tmp_path):
    """The page's receiver.py, running with a secret of its own; yields (url, secret, output)."""
    source = RECEIVER.search(PAGE.read_text())[1]
    script = tmp_path / "receiver.py"
    script.write_text(source)
    secret, port = services.new_secret(), free_port()
    output = tmp_path / "receiver.out"
    with output.open("w") as out:
        process = subprocess.Popen(
            [sys.executable, str(script)],
            env={"WEBHOOK_SECRET": secret, "PORT": str(port), "PATH": "/usr/bin:/bin"},
            stdout=out,
            stderr=subprocess.DEVNULL,  # http.server's request lines
        )
    deadline = time.monotonic() + 20
    while socket.socket().connect_ex(("127.0.0.1", port)) != 0:
        assert process.poll() is None and time.monotonic() < deadline, output.read_text()
        time.sleep(0.1)
    yield f"http://127.0.0.1:{port}/trails", secret, output
    process.terminate()
    process.wait(timeout=10)


def test_the_documented_receiver_verifies_and_handles_each_message_once(
    system, documented_receiver
):
    url, secret, output = documented_receiver
    endpoint = services.create_endpoint(
        system=system, url=url, events=["trail.status_changed"], actor=ACTOR
    ).endpoint
    endpoint.secret = secret  # the receiver's (what the Administrator pasted into it)
    endpoint.save()
    trail = TrailFactory(trail_system=system, name="Ridge", status="Open")
    with transaction.atomic():
        change_trail(trail=trail, status="Closed", actor=ACTOR)

    delivery.send_due(endpoint.pk)
    services.send_again(deliveries=WebhookDelivery.objects.all(), actor=ACTOR)
    delivery.send_due(endpoint.pk)

    assert list(WebhookDelivery.objects.values_list("state", "response_status")) == [
        ("succeeded", 204)
    ]
    time.sleep(0.5)
    assert output.read_text().splitlines() == ["Ridge: Open -> Closed"]
    body = '{"type": "trail.status_changed", "timestamp": "", "data": {}}'
    forged = headers_for([Webhook(services.new_secret())], "msg_forged", body, timezone.now())
    request = urllib.request.Request(url, body.encode(), forged, method="POST")
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=5)
    assert refused.value.code == 400
