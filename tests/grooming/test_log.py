"""The grooming log: a week of two trackers' real tracks and a manager's upload, its figures
against an independent geodesic sum, its files against its JSON, approval and reopening, and
bad periods."""

import csv
import io
from datetime import datetime, time, timedelta
from itertools import pairwise

import pytest
from django.core.cache import cache
from django.utils import timezone
from openpyxl import load_workbook
from pyproj import Geod

from core.actors import Actor, Via
from grooming.models import GroomingPass, Tracker, TrackerPosition
from grooming.trackers import create_tracker
from tests.factories import MembershipFactory, UserFactory
from tests.grooming.replay import as_gpx, big_loop, blue_hills_system, drive
from trails.timezones import zone_of

pytestmark = pytest.mark.django_db

GEOD = Geod(ellps="WGS84")
GPX = "application/gpx+xml"


def geodesic_metres(positions) -> float:
    """The sum of the geodesic distances between successive (lng, lat) positions."""
    return sum(GEOD.inv(*a, *b)[2] for a, b in pairwise(positions))


def log_url(system, **query) -> str:
    params = "&".join(f"{name}={value}" for name, value in query.items())
    return f"/api/v1/trail-systems/{system.pk}/grooming-log" + (f"?{params}" if params else "")


@pytest.fixture
def week(system, manager, django_capture_on_commit_callbacks):
    """Last week (Monday to Sunday, in the system's zone): BIG LOOP driven by PistenBully on
    Monday and by Snowcat on Tuesday, and uploaded by the manager for Wednesday."""
    cache.clear()
    blue_hills = blue_hills_system(system.owner)
    zone = zone_of(blue_hills)
    today = timezone.now().astimezone(zone).date()
    monday = today - timedelta(days=today.weekday() + 7)

    def at(day: int, hour: int) -> datetime:
        return datetime.combine(monday + timedelta(days=day), time(hour), tzinfo=zone)

    trackers = []
    for name in ("PistenBully 400", "Snowcat 2"):
        tracker = create_tracker(
            system=blue_hills, name=name, actor=Actor(system.owner.uid, Via.ID_TOKEN)
        ).tracker
        Tracker.objects.filter(pk=tracker.pk).update(created_on=at(-30, 0))
        tracker.refresh_from_db()
        trackers.append(tracker)
    with django_capture_on_commit_callbacks(execute=True):
        drive(trackers[0], big_loop(now=at(0, 10)))
        drive(trackers[1], big_loop(now=at(1, 10)))
        uploaded = manager.generic(
            "POST",
            f"/api/v1/trail-systems/{blue_hills.pk}/grooming-tracks",
            as_gpx(big_loop(now=at(2, 10))),
            content_type=GPX,
        )
    assert uploaded.status_code == 201, uploaded.content
    return blue_hills, monday, at


def test_a_week_of_trackers_and_an_upload_adds_up(manager, week):
    system, monday, _ = week
    response = manager.get(log_url(system, **{"from": monday, "to": monday + timedelta(days=6)}))
    assert response.status_code == 200, response.content
    log = response.json()
    sessions = log["sessions"]
    assert [(s["machine"], s["source"]) for s in sessions] == [
        ("PistenBully 400", "tracker"),
        ("Snowcat 2", "tracker"),
        (system.owner.email or system.owner.uid, "upload"),
    ]
    assert [s["day"] for s in sessions] == [str(monday + timedelta(days=n)) for n in range(3)]
    file_metres = geodesic_metres([(lng, lat) for lng, lat, _ in big_loop()])
    for session in sessions:
        if session["source"] == "tracker":
            stored = TrackerPosition.objects.filter(
                session__grooming_pass_id=session["id"]
            ).order_by("recorded_at", "id")
            independent = geodesic_metres(stored.values_list("lng", "lat"))
        else:
            independent = file_metres
        assert session["drivenMeters"] == pytest.approx(independent, rel=0.01)
        assert session["hours"] > 0 and session["startedAt"] < session["endedAt"]
        assert session["trails"], "BIG LOOP grooms several trails of the ski area"
    # Each trail: its length times the share each pass covered; a trail groomed end to end
    # counts its length once per pass.
    for trail in log["totals"]["trails"]:
        assert trail["passes"] == 3
        assert trail["groomedMeters"] <= trail["lengthMeters"] * trail["passes"] * 1.0001
    whole = [t for t in sessions[0]["trails"] if t["groomedMeters"] >= 0.98 * t["lengthMeters"]]
    assert whole
    for trail in whole:
        total = next(t for t in log["totals"]["trails"] if t["trailId"] == trail["trailId"])
        assert total["groomedMeters"] == pytest.approx(total["lengthMeters"] * 3, rel=0.02)
    totals = log["totals"]
    assert totals["sessions"] == 3
    assert totals["drivenMeters"] == pytest.approx(sum(s["drivenMeters"] for s in sessions))
    assert [m["machine"] for m in totals["machines"]] == sorted(s["machine"] for s in sessions)

    # The CSV and the spreadsheet hold the same totals.
    table = list(
        csv.DictReader(
            io.StringIO(
                manager.get(log_url(system, **{"from": monday, "format": "csv"})).content.decode(
                    "utf-8-sig"
                )
            )
        )
    )
    assert sum(float(row["drivenMeters"] or 0) for row in table) == pytest.approx(
        totals["drivenMeters"], abs=0.5
    )
    assert sum(float(row["groomedMeters"] or 0) for row in table) == pytest.approx(
        totals["groomedMeters"], abs=0.5
    )
    assert {row["sessionId"] for row in table} == {s["id"] for s in sessions}
    workbook = load_workbook(
        io.BytesIO(manager.get(log_url(system, **{"from": monday, "format": "xlsx"})).content)
    )
    assert workbook.sheetnames[0] == "Totals"
    assert len(workbook.sheetnames) == 4  # totals and a sheet per machine
    summary = {row[0]: row for row in workbook["Totals"].iter_rows(values_only=True) if row}
    assert summary["all machines"][1:] == (
        totals["sessions"],
        totals["hours"],
        totals["drivenMeters"],
        totals["groomedMeters"],
    )


def test_an_approved_week_keeps_its_totals_and_a_reopening_says_who_and_why(
    client_for, manager, week
):
    system, monday, at = week
    period = {"from": str(monday), "to": str(monday + timedelta(days=6))}
    approvals = f"/api/v1/trail-systems/{system.pk}/grooming-log/approvals"
    trustee = UserFactory(uid="trustee-1")
    MembershipFactory(trail_system=system, user=trustee, role="Trustee")
    refused = client_for(trustee).post(approvals, period, "json")
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "admin_required"
    assert client_for(trustee).get(log_url(system, **period)).status_code == 200

    approved = manager.post(approvals, period, "json")
    assert approved.status_code == 201, approved.content
    before = manager.get(log_url(system, **period)).json()
    assert before["approval"]["approvedBy"] == system.owner.uid
    again = manager.post(approvals, {"from": str(monday + timedelta(days=3)), "to": period["to"]})
    assert again.status_code == 400 and again.json()["error"]["message"].startswith("from:")

    late = manager.generic(
        "POST",
        f"/api/v1/trail-systems/{system.pk}/grooming-tracks",
        as_gpx(big_loop(now=at(3, 9))),
        content_type=GPX,
    )
    assert late.status_code == 201
    after = manager.get(log_url(system, **period)).json()
    assert after["totals"] == before["totals"]
    assert [s["afterApproval"] for s in after["sessions"]] == [False, False, False, True]
    assert after["sessions"][-1]["id"] == late.json()["trackId"]

    reopen = f"{approvals}/{approved.json()['id']}/reopen"
    assert manager.post(reopen, {}, "json").status_code == 400
    reopened = manager.post(reopen, {"reason": "Thursday's track came in late"}, "json")
    assert reopened.status_code == 200, reopened.content
    opened = manager.get(log_url(system, **period)).json()
    assert opened["approval"] is None
    assert opened["approvals"][0]["reopenedBy"] == system.owner.uid
    assert opened["approvals"][0]["reopenReason"] == "Thursday's track came in late"
    assert opened["totals"]["sessions"] == 4
    assert GroomingPass.objects.filter(trail_system=system).count() == 4


@pytest.mark.parametrize(
    "query, field, code",
    [
        ({"from": "2026-11-20", "to": "2026-11-10"}, "from", "invalid_field"),
        ({"from": "2025-01-01", "to": "2026-11-10"}, "to", "invalid_field"),
        ({"format": "pdf"}, "format", "invalid_field"),
        ({"from": "last monday"}, "from", "invalid_date"),
    ],
)
def test_bad_periods_and_formats_are_400_naming_the_parameter(manager, system, query, field, code):
    response = manager.get(log_url(system, **query))
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == code and error["message"].startswith(f"{field}:")
