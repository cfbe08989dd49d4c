"""import_trail_system --from-legacy against a stand-in for the service being replaced: the
legacy shapes of spec section 4, served over HTTP (the source is an outside service)."""

import json
import time
from datetime import timedelta

import pytest
from django.core.management.base import CommandError
from django.utils import timezone

from legacy.firestore import timestamp
from tests.fake_http import FakeServer
from tests.moving.support import run
from trails.models import Point, Trail, TrailSystem
from updates.models import Update

pytestmark = pytest.mark.django_db

LINE = [[-113.95, 45.69], [-113.949, 45.691]]


def line_collection(*parts) -> str:
    features = [
        {"type": "Feature", "properties": {}, "geometry": {"type": "LineString", "coordinates": p}}
        for p in parts
    ]
    return json.dumps({"type": "FeatureCollection", "features": features})


class Source:
    """The documents of one system, as the replaced service answers them."""

    def __init__(self):
        now = timezone.now()
        self.future = timestamp(now + timedelta(days=2))
        self.past = timestamp(now - timedelta(days=1))
        self.created = timestamp(now - timedelta(days=300))
        self.documents: dict[str, object] = {}
        self.system = {
            "name": "Pine Hill", "description": "Groomed daily.", "language": "fr",
            "tempMeasurement": "celsius", "depthMeasurement": "centimeters",
            "geolocation": {"_latitude": 45.7, "_longitude": -113.9}, "subscription": "pro",
            "iconPath": False, "hideName": True, "createdOn": self.created,
            "updates": {
                "notice": [
                    {"id": "notice00000000000001", "type": "notice", "description": "Open 9-4.",
                     "severity": "warning", "linkUrl": "", "expirationDate": self.future,
                     "updatedOn": self.created},
                    {"id": "notice00000000000002", "type": "notice", "description": "Old.",
                     "expirationDate": self.past},
                ],
            },
        }  # fmt: skip
        self.trails = [
            {"id": "timber00000000000001", "name": "Timber", "status": "None",
             "difficulty": "square", "order": 1, "categories": ["Nordic"],
             "activities": [{"value": "nordic-skate", "label": "Skate", "iconClass": "i",
                             "status": "Caution", "difficulty": "diamond"}],
             "geoJson": line_collection(LINE, [[-113.94, 45.7], [-113.93, 45.71]]),
             "elevations": [1800.5] * 50, "createdOn": self.created},
            {"id": "chair000000000000001", "name": "Chair", "type": "Lift", "status": "Open",
             "order": 0, "activities": [], "geoJson": line_collection(LINE),
             "elevations": False},
        ]  # fmt: skip
        groomed = {"id": "groomed0000000000001", "type": "surfaceConditions",
                   "conditions": [{"value": "skateGroomed", "text": "x"}],
                   "expirationDate": "2999-01-01T00:00:00.000Z",
                   "updatedOn": "2026-11-20T08:00:00.000Z"}  # fmt: skip
        self.file = {
            "type": "FeatureCollection",
            "features": [
                {"type": "Feature", "geometry": {"type": "LineString", "coordinates": LINE},
                 "properties": {"trailId": "timber00000000000001", "name": "Timber",
                                "updates": {"surfaceConditions": [groomed]}}},
                {"type": "Feature", "geometry": {"type": "Point", "coordinates": [-113.9, 45.7]},
                 "properties": {"pointId": "lodge000000000000001", "name": "Lodge",
                                "markerClass": "lodge", "status": "Open", "hidden": False,
                                "waitTime": None, "diningOptions": None}},
            ],
        }  # fmt: skip
        self.point = {"name": "Lodge", "description": "Soup.", "webCamUrl": "https://cam.test/1",
                      "markerClass": "lodge", "createdOn": self.created}  # fmt: skip

    def respond(self, request):
        routes = {
            "/legacy/ts/pine": self.system,
            "/legacy/trails/pine": self.trails,
            "/maps/pine.geojson": self.file,
            "/legacy/point/lodge000000000000001": self.point,
            **self.documents,
        }
        if request.path not in routes:
            return 500, b""
        return 200, routes[request.path]


@pytest.fixture
def source():
    source = Source()
    with FakeServer(source.respond) as server:
        source.system["geoJsonUrl"] = f"{server.url}/maps/pine.geojson"
        source.server = server
        yield source


def import_from(source, *more):
    return run("import_trail_system", "--from-legacy", f"{source.server.url}/legacy", "pine",
               "--owner", "uid-owner", *more)  # fmt: skip


def assert_nothing_written():
    assert not TrailSystem.objects.exists()
    assert not Trail.all_objects.exists()
    assert not Point.all_objects.exists()
    assert not Update.objects.exists()


def test_a_system_is_copied_with_its_ids_trails_points_and_active_updates(source):
    output = import_from(source)

    assert output.created_id == "pine"
    system = TrailSystem.objects.get(pk="pine")
    assert (system.name, system.language, system.temp_measurement, system.subscription) == (
        "Pine Hill", "fr", "celsius", "pro",
    )  # fmt: skip
    assert (system.lat, system.lng, system.hide_name, system.owner.uid) == (
        45.7, -113.9, True, "uid-owner",
    )  # fmt: skip
    assert list(system.trails.values_list("pk", flat=True)) == [
        "chair000000000000001", "timber00000000000001",
    ]  # fmt: skip
    timber = Trail.objects.get(pk="timber00000000000001")
    assert timber.geometry["type"] == "MultiLineString"
    assert (timber.status, timber.difficulty, timber.categories) == ("None", "square", ["Nordic"])
    assert timber.elevations == [1800.5] * 50
    assert timestamp(timber.created_on) == source.created
    assert [(a.value, a.status, a.difficulty) for a in timber.activities.all()] == [
        ("nordic-skate", "Caution", "diamond"),
    ]
    lodge = Point.objects.get(pk="lodge000000000000001")
    assert (lodge.description, lodge.web_cam_url) == ("Soup.", "https://cam.test/1")
    notice = Update.objects.get(pk="notice00000000000001")
    assert (notice.description, notice.severity, notice.source) == (
        "Open 9-4.",
        "warning",
        "import",
    )
    groomed = Update.objects.get(pk="groomed0000000000001")
    assert groomed.conditions == ["skateGroomed"]
    assert list(groomed.trails.values_list("pk", flat=True)) == ["timber00000000000001"]
    assert Update.objects.count() == 2  # the expired notice is left out
    assert set(system.status_changes.values_list("via", "uid", "new_value")) == {
        ("import", "uid-owner", "None"), ("import", "uid-owner", "Open"),
    }  # fmt: skip
    assert "left out 1 expired updates" in output.stderr


def test_dry_run_reads_everything_and_writes_nothing(source):
    output = import_from(source, "--dry-run")
    assert "Would import trail system pine (Pine Hill): 2 trails, 1 points, 2 active updates." in (
        output.stderr
    )
    assert output.stdout == ""
    assert_nothing_written()
    assert {r.path for r in source.server.requests} == {
        "/legacy/ts/pine", "/legacy/trails/pine", "/maps/pine.geojson",
        "/legacy/point/lodge000000000000001",
    }  # fmt: skip


def test_bad_trails_are_all_reported_and_skip_invalid_imports_the_rest(source):
    source.trails.append({"id": "bad00000000000000001", "name": "Broken", "geoJson": "{oops",
                          "status": "Groomed"})  # fmt: skip
    with pytest.raises(CommandError) as failure:
        import_from(source)
    lines = str(failure.value).splitlines()
    assert lines[1:] == [
        "trail 2 (Broken): geoJson " + lines[1].split("geoJson ", 1)[1],
        "trail 2 (Broken): status 'Groomed' is not one of Open, Caution, Closed, None.",
    ]
    assert_nothing_written()

    output = import_from(source, "--skip-invalid")
    assert TrailSystem.objects.get(pk=output.created_id).trails.count() == 2
    assert "skipped trail 2 (Broken): status 'Groomed'" in output.stderr


def test_an_unknown_id_is_a_clear_error(source):
    with pytest.raises(CommandError, match=r"answered HTTP 500 with an empty body .*Check the id"):
        run("import_trail_system", "--from-legacy", f"{source.server.url}/legacy", "nope")
    assert_nothing_written()


def test_a_source_that_is_not_the_legacy_interface_is_refused(source):
    source.documents["/site/ts/pine"] = b"<html>Welcome</html>"
    with pytest.raises(
        CommandError, match=r"did not answer JSON .*is .*/site/ the legacy interface"
    ):
        run("import_trail_system", "--from-legacy", f"{source.server.url}/site", "pine")
    assert_nothing_written()


def test_a_failure_after_some_documents_were_read_writes_nothing(source):
    source.documents["/legacy/trails/pine"] = {"trails": []}
    with pytest.raises(CommandError, match=r"/trails/:id is not a JSON array"):
        import_from(source)
    source.documents.pop("/legacy/trails/pine")
    source.documents["/legacy/point/lodge000000000000001"] = b"oops"
    with pytest.raises(CommandError, match="did not answer JSON"):
        import_from(source)
    assert_nothing_written()


def test_an_unreachable_source_is_a_clear_error():
    with pytest.raises(CommandError, match=r"Cannot reach http://127.0.0.1:18699/legacy/ts/pine"):
        run("import_trail_system", "--from-legacy", "http://127.0.0.1:18699/legacy", "pine")
    assert_nothing_written()


def test_busy_answers_are_retried(source):
    busy = iter([503])

    def respond(request):
        if request.path == "/legacy/ts/pine" and next(busy, None):
            return 503, {"error": "busy"}
        return source.respond(request)

    source.server.responder = respond
    assert import_from(source).created_id == "pine"
    assert [r.path for r in source.server.requests][:2] == ["/legacy/ts/pine"] * 2


def test_a_source_slower_than_the_timeout_is_a_clear_error(source):
    def slow(request):
        time.sleep(0.3)
        return source.respond(request)

    source.server.responder = slow
    with pytest.raises(CommandError, match=r"did not answer within 0\.1 s"):
        import_from(source, "--timeout", "0.1")
    assert_nothing_written()


def test_problems_of_the_system_trails_and_updates_are_reported_together(source):
    source.system["language"] = "de"
    source.system["updates"]["notice"][0]["description"] = ""
    source.trails[1]["status"] = "Shut"
    with pytest.raises(CommandError) as failure:
        import_from(source, "--skip-invalid")  # the system itself cannot be skipped
    assert str(failure.value).splitlines()[1:] == [
        "trail system (Pine Hill): language 'de' is not one of en, fr.",
        "trail 1 (Chair): status 'Shut' is not one of Open, Caution, Closed, None.",
        "update 0 (notice): description must be a non-empty string.",
    ]
    assert_nothing_written()
