"""import_grooming_track: the API's answer, from a file, for backfills."""

import json
from datetime import UTC, datetime
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError

from grooming.models import GroomingPass
from tests.factories import TrailFactory
from tests.grooming.geo import gpx, path
from updates.models import Update

pytestmark = pytest.mark.django_db

START = datetime(2026, 1, 15, 5, 0, tzinfo=UTC)


@pytest.fixture
def trail(system):
    return TrailFactory(
        trail_system=system,
        name="Main",
        geometry={"type": "LineString", "coordinates": path([(0, 0), (2000, 0)], step=100)},
    )


@pytest.fixture
def gpx_file(tmp_path):
    file = tmp_path / "groomer.gpx"
    file.write_bytes(gpx([path([(-50, 0), (2050, 0)], step=4)], START))
    return file


def run(*args) -> dict:
    out = StringIO()
    call_command("import_grooming_track", *args, stdout=out)
    return json.loads(out.getvalue())


def test_dry_run_prints_what_the_api_answers(system, trail, gpx_file, manager):
    options = ["--tolerance", "20", "--condition", "skateGroomed", "--dry-run"]
    printed = run(system.pk, str(gpx_file), *options)
    answered = manager.generic(
        "POST",
        f"/api/v1/trail-systems/{system.pk}/grooming-tracks"
        "?toleranceMeters=20&condition=skateGroomed&dryRun=true",
        gpx_file.read_bytes(),
        content_type="application/gpx+xml",
    ).json()
    assert printed == answered
    assert printed["trackId"] is None
    assert not GroomingPass.objects.exists()


def test_a_backfill_records_the_pass_for_the_owner(system, trail, tmp_path):
    geojson = tmp_path / "track.geojson"
    line = {"type": "LineString", "coordinates": path([(-50, 0), (2050, 0)])}
    geojson.write_text(json.dumps(line))
    printed = run(system.pk, str(geojson), "--groomed-at", "2026-01-10T04:00:00Z")
    assert printed["groomedAt"] == "2026-01-10T04:00:00.000Z"
    assert [t["name"] for t in printed["trails"]] == ["Main"]
    grooming_pass = GroomingPass.objects.get(pk=printed["trackId"])
    assert grooming_pass.uid == system.owner.pk
    assert list(Update.objects.values_list("pk", flat=True)) == printed["updateIds"]


@pytest.mark.parametrize(
    "arguments, says",
    [
        (["nope", "{gpx}"], "No trail system 'nope'"),
        (["{system}", "{missing}"], "Cannot read"),
        (["{system}", "{broken}"], "neither GPX nor valid JSON"),
        (["{system}", "{gpx}", "--groomed-at", "whenever"], "--groomed-at"),
        (["{system}", "{gpx}", "--tolerance", "4"], "--tolerance: must be from"),
        (["{system}", "{gpx}", "--condition", "slushy"], "'slushy' is not"),
    ],
)
def test_bad_input_is_refused_with_a_reason(system, trail, gpx_file, tmp_path, arguments, says):
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    names = {
        "gpx": gpx_file,
        "system": system.pk,
        "missing": tmp_path / "missing.gpx",
        "broken": broken,
    }
    with pytest.raises(CommandError, match=says):
        run(*(argument.format(**names) for argument in arguments))
    assert not GroomingPass.objects.exists()


def test_the_documented_example_grooms_the_demo_timber_trail():
    """docs/operators/commands.md: the derived Timber Trail track against the demo system, as
    printed there."""
    from demo.loader import load_demo

    system, _ = load_demo()
    printed = run(
        system.pk,
        str(settings.BASE_DIR / "data" / "lost_trail_timber_trail_grooming.gpx"),
        "--condition",
        "classicGroomed",
        "--dry-run",
    )
    page = (settings.BASE_DIR / "docs" / "operators" / "commands.md").read_text()
    assert json.dumps(printed) in page
