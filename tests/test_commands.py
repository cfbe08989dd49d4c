"""Every management command: what it prints, and how it refuses bad input."""

import json
import os
import subprocess
import sys
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from apikeys.identity import verify_id_token
from apikeys.models import User
from demo.loader import DEMO_OWNER_UID, DEMO_SYSTEM_ID
from publishing.models import CompileRequest
from tests.factories import SubscriberFactory, TrailSystemFactory, UserFactory
from trails.enums import MARKER_CLASSES
from trails.models import Membership, Point, Trail, TrailSystem
from updates.models import Subscriber, Update

pytestmark = pytest.mark.django_db

ALL_COMMANDS = [
    "create_trail_system",
    "set_super_admin",
    "dev_token",
    "add_subscriber",
    "load_demo",
    "import_osm",
    "import_trail_system",
    "export_trail_system",
    "import_gpx",
    "import_grooming_track",
    "check_feeds",
]


def run(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def write_json(tmp_path, data) -> str:
    path = tmp_path / "file.geojson"
    path.write_text(json.dumps(data))
    return str(path)


@pytest.mark.parametrize("command", ALL_COMMANDS)
def test_every_command_has_help(command):
    result = subprocess.run(
        [sys.executable, "manage.py", command, "--help"],
        cwd=settings.BASE_DIR,
        capture_output=True,
        text=True,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings"},
    )
    assert result.returncode == 0
    assert "usage: manage.py " + command in result.stdout


def test_a_failing_command_exits_non_zero_with_its_message(tmp_path):
    bad = tmp_path / "bad.geojson"
    bad.write_text("{not json")
    result = subprocess.run(
        [sys.executable, "manage.py", "create_trail_system", "--name", "X", "--owner", "o",
         "--from-geojson", str(bad)],
        cwd=settings.BASE_DIR,
        capture_output=True,
        text=True,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings"},
    )  # fmt: skip
    assert result.returncode == 1
    assert "is not valid JSON" in result.stderr


# create_trail_system


def test_create_trail_system_prints_the_new_id():
    out = run(
        "create_trail_system", "--name", "Nordic Centre", "--owner", "uid-owner",
        "--member", "uid-a=Administrator", "--member", "uid-t=Trustee",
        "--member", "uid-g=Grooming Crew", "--tier", "pro", "--inactive",
    )  # fmt: skip
    system = TrailSystem.objects.get(pk=json.loads(out)["id"])
    assert out.count("\n") == 1
    assert (system.name, system.owner_id, system.subscription, system.inactive) == (
        "Nordic Centre", "uid-owner", "pro", True,
    )  # fmt: skip
    assert dict(system.memberships.values_list("user_id", "role")) == {
        "uid-a": "Administrator", "uid-t": "Trustee", "uid-g": "Grooming Crew",
    }  # fmt: skip
    assert User.objects.filter(uid__in=["uid-owner", "uid-a", "uid-t", "uid-g"]).count() == 4


def test_create_trail_system_defaults_and_existing_users():
    owner = UserFactory(uid="uid-owner", email="owner@example.test")
    system = TrailSystem.objects.get(
        pk=json.loads(run("create_trail_system", "--name", "Hill", "--owner", "uid-owner"))["id"]
    )
    assert (system.subscription, system.inactive, system.owner) == ("free", False, owner)
    assert User.objects.get(uid="uid-owner").email == "owner@example.test"


def test_create_trail_system_imports_a_published_file(tmp_path):
    collection = {
        "type": "FeatureCollection",
        "features": [
            {"type": "Feature", "geometry": {"type": "LineString",
             "coordinates": [[-113.9, 45.7], [-113.91, 45.71]]},
             "properties": {"trailId": "t1", "name": "Loop", "status": "Open",
                            "activities": [{"value": "hiking", "status": "Open"}]}},
            {"type": "Feature", "geometry": {"type": "Point", "coordinates": [-113.9, 45.7]},
             "properties": {"pointId": "p1", "name": "Lot", "markerClass": "parking",
                            "webCamUrl": "https://cam.example.test"}},
        ],
    }  # fmt: skip
    out = run(
        "create_trail_system", "--name", "Imported", "--owner", "o",
        "--from-geojson", write_json(tmp_path, collection),
    )  # fmt: skip
    system_id = json.loads(out)["id"]
    assert Trail.objects.get(pk="t1").trail_system_id == system_id
    assert Point.objects.get(pk="p1").web_cam_url == "https://cam.example.test"
    assert CompileRequest.objects.filter(trail_system_id=system_id).count() == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--owner", "o"], "--name"),
        (["--name", "X"], "--owner"),
        (["--name", " ", "--owner", "o"], "name must be 1 to 2000"),
        (["--name", "X", "--owner", "has space"], "Invalid uid"),
        (["--name", "X", "--owner", "o", "--member", "uid-a"], "expected UID=ROLE"),
        (["--name", "X", "--owner", "o", "--member", "uid-a="], "Invalid role ''"),
        (["--name", "X", "--owner", "o", "--member", "uid-a=R2D2"], "Invalid role 'R2D2'"),
        (["--name", "X", "--owner", "o", "--member", "a=Trustee", "--member", "a=Trustee"],
         "listed more than once"),
        (["--name", "X", "--owner", "o", "--tier", "t" * 41], "tier is longer"),
        (["--name", "X", "--owner", "o", "--from-geojson", "/nonexistent.geojson"], "Cannot read"),
    ],
)  # fmt: skip
def test_create_trail_system_refuses_bad_input(args, message):
    with pytest.raises(CommandError, match=message.replace("(", r"\(")):
        run("create_trail_system", *args)
    assert not TrailSystem.objects.exists()
    assert not User.objects.exists()


def test_create_trail_system_reports_bad_features_and_imports_nothing(tmp_path):
    collection = {
        "type": "FeatureCollection",
        "features": [
            {"type": "Feature", "geometry": {"type": "Point", "coordinates": [0, 0]},
             "properties": {"name": "Good", "markerClass": "bar"}},
            {"type": "Feature", "geometry": {"type": "Polygon", "coordinates": []},
             "properties": {}},
            {"type": "Feature", "geometry": {"type": "Point", "coordinates": [0, 0]},
             "properties": {"name": "Bad", "markerClass": "igloo"}},
        ],
    }  # fmt: skip
    path = write_json(tmp_path, collection)
    with pytest.raises(CommandError) as failure:
        run("create_trail_system", "--name", "X", "--owner", "o", "--from-geojson", path)
    header, *lines = str(failure.value).splitlines()
    assert header == "Nothing was imported: 3 problems (--skip-invalid imports the rest)."
    assert lines == [
        "feature 1: geometry type 'Polygon' cannot be imported (Point or LineString).",
        "feature 1: name is required.",
        "feature 2 (Bad): markerClass 'igloo' is not one of " + ", ".join(MARKER_CLASSES) + ".",
    ]
    assert not TrailSystem.objects.exists()
    assert not Point.all_objects.exists()


# set_super_admin


def test_set_super_admin_on_creates_the_account_and_off_clears_the_flag():
    assert json.loads(run("set_super_admin", "uid-boss")) == {"uid": "uid-boss", "superAdmin": True}
    assert User.objects.get(uid="uid-boss").is_super_admin
    assert json.loads(run("set_super_admin", "uid-boss", "--off"))["superAdmin"] is False
    assert not User.objects.get(uid="uid-boss").is_super_admin


def test_set_super_admin_refuses_unknown_account_for_off_and_bad_uid():
    with pytest.raises(CommandError, match="No account with uid ghost"):
        run("set_super_admin", "ghost", "--off")
    with pytest.raises(CommandError, match="Invalid uid"):
        run("set_super_admin", "two words")
    with pytest.raises(CommandError):
        run("set_super_admin")
    assert not User.objects.exists()


# dev_token


def test_dev_token_prints_a_token_the_service_accepts_and_creates_the_user():
    token = run("dev_token", "uid-dev", "--email", "dev@example.test").strip()
    claims = verify_id_token(token)
    assert (claims["uid"], claims["email"]) == ("uid-dev", "dev@example.test")
    assert User.objects.get(uid="uid-dev").email == "dev@example.test"


def test_dev_token_for_an_existing_user_keeps_its_email():
    UserFactory(uid="uid-dev", email="kept@example.test")
    claims = verify_id_token(run("dev_token", "uid-dev").strip())
    assert claims["email"] == "kept@example.test"


def test_dev_token_refuses_a_disabled_account_as_every_sign_in_does():
    UserFactory(uid="uid-gone", is_active=False)
    with pytest.raises(CommandError, match="This account is disabled"):
        run("dev_token", "uid-gone")


def test_dev_token_refuses_a_bad_email_or_uid():
    with pytest.raises(CommandError, match="not a valid email"):
        run("dev_token", "uid-dev", "--email", "not-an-email")
    with pytest.raises(CommandError, match="Invalid uid"):
        run("dev_token", " ")
    assert not User.objects.exists()


# add_subscriber


def test_add_subscriber_with_email_phone_or_both():
    system = TrailSystemFactory()
    first = json.loads(run("add_subscriber", system.pk, "--email", "Rider@Example.TEST"))
    second = json.loads(run("add_subscriber", system.pk, "--phone", "+1 406 555 0123"))
    third = json.loads(
        run("add_subscriber", system.pk, "--email", "b@example.test", "--phone", "+33612345678")
    )
    stored = {s.pk: (s.email, s.phone) for s in Subscriber.objects.all()}
    assert stored == {
        first["id"]: ("Rider@example.test", ""),
        second["id"]: ("", "+14065550123"),
        third["id"]: ("b@example.test", "+33612345678"),
    }


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "Give an email address, a phone number, or both"),
        (["--email", "nope"], "'nope' is not a valid email address"),
        (["--phone", "4065550123"], "E.164"),
        (["--phone", "+1 406 555"], "E.164"),
        (["--phone", "+abc"], "E.164"),
        (["--email", "taken@example.test"], "already subscribed"),
        (["--email", "TAKEN@example.test"], "already subscribed"),
        (["--phone", "+14065550199"], "already subscribed"),
    ],
)
def test_add_subscriber_refuses_bad_or_duplicate_contacts(args, message):
    system = TrailSystemFactory()
    SubscriberFactory(trail_system=system, email="taken@example.test", phone="+14065550199")
    with pytest.raises(CommandError, match=message):
        run("add_subscriber", system.pk, *args)
    assert Subscriber.objects.count() == 1


def test_add_subscriber_refuses_an_unknown_system():
    with pytest.raises(CommandError, match="No trail system with id missing"):
        run("add_subscriber", "missing", "--email", "a@example.test")


def test_the_same_contact_may_subscribe_to_another_system_or_again_after_unsubscribing():
    system, other = TrailSystemFactory(), TrailSystemFactory()
    SubscriberFactory(trail_system=system, email="a@example.test", unsubscribed_on=timezone.now())
    run("add_subscriber", system.pk, "--email", "a@example.test")
    run("add_subscriber", other.pk, "--email", "a@example.test")
    assert Subscriber.objects.filter(email="a@example.test").count() == 3


# load_demo


def test_load_demo_loads_once_and_a_second_run_changes_nothing():
    assert "Loaded the demo system" in run("load_demo")
    counts = (
        Trail.all_objects.count(), Point.all_objects.count(), Update.objects.count(),
        Membership.objects.count(), CompileRequest.objects.count(), User.objects.count(),
    )  # fmt: skip

    assert "already loaded; nothing changed" in run("load_demo")
    assert run("load_demo", "--print-id") == DEMO_SYSTEM_ID + "\n"
    assert counts == (
        Trail.all_objects.count(), Point.all_objects.count(), Update.objects.count(),
        Membership.objects.count(), CompileRequest.objects.count(), User.objects.count(),
    )  # fmt: skip


def test_load_demo_print_id_loads_first_when_absent():
    assert run("load_demo", "--print-id") == DEMO_SYSTEM_ID + "\n"
    assert Trail.objects.filter(trail_system_id=DEMO_SYSTEM_ID).count() == 109


def test_load_demo_welcome_prints_what_make_run_shows_and_both_work(client):
    printed = run("load_demo", "--welcome", "http://127.0.0.1:8123")
    curl = next(line for line in printed.splitlines() if "curl" in line)
    token = curl.split("Bearer ", 1)[1].split('"', 1)[0]
    assert curl.endswith(f"http://127.0.0.1:8123/api/v1/trail-systems/{DEMO_SYSTEM_ID}/trails")
    trails = client.get(
        f"/api/v1/trail-systems/{DEMO_SYSTEM_ID}/trails", HTTP_AUTHORIZATION=f"Bearer {token}"
    )
    assert trails.status_code == 200 and len(trails.json()["trails"]) == 109
    link = printed.strip().rsplit("\n", 1)[1].strip()
    assert "/admin/login/link/use/?sesame=" in link
    page = client.get(link.split(settings.PUBLIC_BASE_URL.rstrip("/"), 1)[1])
    assert page.status_code == 200 and b'method="post"' in page.content.lower()


def test_the_demo_looks_alive():
    run("load_demo")
    system = TrailSystem.objects.get(pk=DEMO_SYSTEM_ID)
    assert system.owner_id == DEMO_OWNER_UID
    assert system.owner.email == "owner@demo.test"
    assert (system.language, system.length_measurement, system.depth_measurement) == (
        "en", "miles", "inches",
    )  # fmt: skip
    assert 45.55 < system.lat < 45.75 and -114.14 < system.lng < -113.88
    assert "© OpenStreetMap contributors" in system.description
    statuses = set(system.trails.values_list("status", flat=True))
    assert statuses == {"Open", "Caution", "Closed", "None"}
    assert system.trails.filter(type="Lift").count() == 8
    markers = set(system.points.values_list("marker_class", flat=True))
    assert {"parking", "lodge", "first-aid", "trailhead", "web-cam", "wait-time"} <= markers
    assert system.points.get(marker_class="web-cam").web_cam_url.startswith("https://")
    assert system.points.get(marker_class="wait-time").wait_time == 5
    updates = Update.objects.filter(trail_system=system).active()
    assert {u.type for u in updates} == {"notice", "snowReport", "surfaceConditions"}
    groomed = updates.filter(type="surfaceConditions").first()
    assert groomed.trails.exists()
    assert all("Nordic" in t.categories for t in groomed.trails.all())


def test_the_demo_shows_its_weather_on_the_legacy_route_from_the_start(client):
    """make run's demo shows a working weather service, not the legacy 500 of missing data."""
    run("load_demo")
    response = client.get(f"/legacy/weather/{DEMO_SYSTEM_ID}")
    assert response.status_code == 200
    [forecast] = response.json()
    assert (forecast["temperature"], forecast["source"]) == (-4.0, "fixed")
