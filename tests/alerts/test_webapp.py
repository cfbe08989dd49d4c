"""What managers see of riders' alerts in the web app: how many follow a trail (never who),
and the owner's switch for the whole system."""

import re

import pytest

from alerts.services import turn_alerts_off
from core.actors import Actor, Via
from tests.alerts.push_service import Subscription
from tests.factories import TrailFactory
from tests.fake_http import FakeServer

pytestmark = pytest.mark.django_db


def test_a_trail_page_counts_its_followers_and_the_system_page_has_the_switch(client, system):
    trail = TrailFactory(trail_system=system, name="Ridge")
    with FakeServer(lambda request: (201, b"")) as server:
        for _ in range(3):
            body = {
                "channel": "push",
                "subscription": Subscription.to(server).json(),
                "rules": [
                    {"trailId": trail.pk, "on": ["closes"]},
                    {"trailId": None, "on": ["snow"]},
                ],
            }
            assert (
                client.post(
                    f"/alerts/{system.pk}", body, content_type="application/json"
                ).status_code
                == 201
            )
    client.force_login(system.owner)

    page = client.get(f"/admin/trails/trail/{trail.pk}/change/").content.decode()
    assert "Riders following it" in page
    count = page[page.index("Riders following it") :][:400]
    assert ">3<" in count.replace(" ", "").replace("\n", "")

    assert "checked" in alerts_switch(client, system)
    turn_alerts_off(system=system, actor=Actor(system.owner.uid, Via.WEB_APP))
    assert "checked" not in alerts_switch(client, system)


def alerts_switch(client, system) -> str:
    page = client.get(f"/admin/trails/trailsystem/{system.pk}/change/").content.decode()
    return re.search(r'<input type="checkbox" name="alerts_on"[^>]*>', page).group(0)
