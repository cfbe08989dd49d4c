"""The developers' trackers page shows a position request a reader pastes into a terminal
(`curl`, by the OsmAnd protocol and by OwnTracks'): run here as shown, with a real secret and the
live server's address, each is taken and the tracker is grooming now."""

import re
import subprocess
from pathlib import Path

import pytest
from django.conf import settings

from core.actors import Actor, Via
from grooming.models import TrackerPosition
from grooming.trackers import create_tracker, trackers_of_system
from tests.factories import TrailFactory, TrailSystemFactory
from tests.grooming.geo import path

pytestmark = pytest.mark.django_db(transaction=True)

PAGE = Path(settings.BASE_DIR) / "docs" / "developers" / "trackers.md"
SH_BLOCK = re.compile(r"^```sh\n(?P<body>.*?)^```", re.M | re.S)


def test_the_documented_curl_requests_record_positions(live_server):
    system = TrailSystemFactory()
    TrailFactory(
        trail_system=system,
        geometry={"type": "LineString", "coordinates": path([(0, 0), (1500, 0)], step=50)},
    )
    secret = create_tracker(
        system=system, name="PistenBully 1", actor=Actor("owner", Via.ID_TOKEN)
    ).secret
    shown = next(
        block["body"] for block in SH_BLOCK.finditer(PAGE.read_text()) if "curl" in block["body"]
    )
    script = re.sub(r"^SECRET=\S+", f"SECRET={secret}", shown, flags=re.M)
    script = re.sub(r"^BASE=\S+", f"BASE={live_server.url}", script, flags=re.M)
    assert script.count("curl -i") == 2
    done = subprocess.run(
        ["bash", "-e", "-c", script.replace("curl -i", "curl -sS -f -i")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("HTTP/1.1 200") == 2
    assert TrackerPosition.objects.count() == 2
    assert trackers_of_system(system).get().grooming_now
