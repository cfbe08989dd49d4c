"""/feeds/<id>/mtnxml.xml read as a snow-report partner reads MTN.XML 1.0: the demo's ski
trails and lifts with their statuses, difficulties and grooming, its snow report as current
conditions; a system without alpine or nordic trails has none."""

import pytest
from django.db import transaction
from lxml import etree

from core.actors import Actor, Via
from demo.loader import load_demo
from public.mtnxml import SKI_ACTIVITIES
from public.selectors import published_trails
from publishing.scheduling import record_compile_request
from tests.factories import TrailActivityFactory, TrailFactory, TrailSystemFactory
from updates.services import create_update

pytestmark = pytest.mark.django_db

MANAGER = Actor("manager-uid", Via.ID_TOKEN)
MTN_STATUS = {"Open": "Open", "Caution": "Open", "Closed": "Closed"}


def report(client, system) -> etree._ElementTree:
    response = client.get(f"/feeds/{system.pk}/mtnxml.xml")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/xml")
    document = etree.ElementTree(etree.fromstring(response.content))
    assert document.docinfo.public_id == "MTN.XML 1.0"
    assert document.getroot().tag == "report"
    return document


@pytest.fixture
def publish(django_capture_on_commit_callbacks):
    def run(system):
        with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
            record_compile_request(system, reason="test")
        system.refresh_from_db()
        return system

    return run


def test_the_demo_reports_its_ski_trails_lifts_and_snow(client, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        system, _ = load_demo()
    system.refresh_from_db()
    root = report(client, system).getroot()

    assert root.get("name") == system.name
    assert int(root.get("updated")) == int(system.compiled_on.timestamp())
    assert root.get("units") == "imperial"
    assert root.find("operations").get("resortStatus") == "Open"

    published = published_trails(system)
    lifts = {t["name"]: MTN_STATUS[t["status"]] for t in published if t.get("type") == "Lift"}
    assert lifts
    assert {lift.get("name"): lift.get("status") for lift in root.iter("lift")} == lifts
    ski_trails = [
        t
        for t in published
        if t.get("type") != "Lift" and {a["value"] for a in t["activities"]} & SKI_ACTIVITIES
    ]
    listed = root.findall("facilities/areas/area/trails/trail")
    assert len(listed) + len(root.findall(".//park")) == len(ski_trails)
    assert {trail.get("status") for trail in listed} == {"Open", "Closed"}
    closed = {t["name"] for t in ski_trails if t["status"] == "Closed"}
    assert closed and closed <= {t.get("name") for t in listed if t.get("status") == "Closed"}
    assert {t.get("difficulty") for t in listed} >= {"novice", "intermediate", "advanced"}
    # The demo grooms six nordic trails today (a surface-conditions update says so).
    assert [t.get("groomed") for t in listed].count("Yes") == 6
    resortwide = root.find("currentConditions/resortwide")
    assert resortwide.get("numTrailsGroomed") == "6"
    assert int(resortwide.get("numTrailsOpen")) == sum(t.get("status") == "Open" for t in listed)
    location = root.find("currentConditions/resortLocations/location")
    assert (location.get("base"), location.get("snow24Hours"), location.get("snow48Hours")) == (
        "48",
        "4",
        "9",
    )
    assert (location.get("snow7Days"), location.get("snowSeasonTotal")) == ("16", "142")


def test_a_caution_run_is_open_a_terrain_park_is_a_park_and_names_are_text(
    client, django_capture_on_commit_callbacks
):
    system = TrailSystemFactory(name="Pine <Hill> & Co", depth_measurement="centimeters")
    run = TrailFactory(trail_system=system, name='Ridge "Run"', status="None")
    TrailActivityFactory(trail=run, value="skiing", status="Caution", difficulty="doubleDiamond")
    park = TrailFactory(trail_system=system, name="Jib Park", difficulty="terrainPark")
    TrailActivityFactory(trail=park, value="skiing", status="Open")
    TrailFactory(trail_system=system, name="Chair 2", type="Lift", status="Closed")
    hiking = TrailFactory(trail_system=system, name="Summer Path")
    TrailActivityFactory(trail=hiking, value="hiking", status="Open")
    with django_capture_on_commit_callbacks(execute=True):  # a write, then its compile
        create_update(system=system, type="snowReport", base_depth=95.5, actor=MANAGER)
    root = report(client, system).getroot()

    assert root.get("name") == "Pine <Hill> & Co"
    assert root.get("units") == "metric"
    (trail,) = root.iter("trail")
    assert dict(trail.attrib) == {
        "name": 'Ridge "Run"',
        "status": "Open",
        "groomed": "No",
        "difficulty": "expert",
    }
    (listed_park,) = root.iter("park")
    assert listed_park.get("name") == "Jib Park"
    assert [(lift.get("name"), lift.get("status")) for lift in root.iter("lift")] == [
        ("Chair 2", "Closed")
    ]
    assert root.find(".//location").get("base") == "95.5"
    assert root.find("currentConditions/resortwide").get("numLiftsOpen") == "0"


def test_an_expired_snow_report_is_no_current_condition(client, django_capture_on_commit_callbacks):
    system = TrailSystemFactory()
    TrailActivityFactory(trail=TrailFactory(trail_system=system), value="nordic-classic")
    with django_capture_on_commit_callbacks(execute=True):
        create_update(system=system, type="snowReport", base_depth=30, actor=MANAGER)
    system.refresh_from_db()
    assert report(client, system).getroot().find(".//location").get("base") == "30"
    # Expired since the compile that published it, and none since.
    system.published_updates["snowReport"][0]["expirationDate"] = "2020-01-01T00:00:00.000Z"
    system.save(update_fields=["published_updates"])
    root = report(client, system).getroot()
    assert root.find(".//resortLocations") is None


def test_a_system_without_ski_trails_has_no_report(client, publish):
    system = TrailSystemFactory()
    TrailActivityFactory(trail=TrailFactory(trail_system=system), value="mountain-biking")
    publish(system)
    assert client.get(f"/feeds/{system.pk}/mtnxml.xml").status_code == 404
    assert client.get("/feeds/nope/mtnxml.xml").status_code == 404
