"""The Open511 feeds: the XML is valid against the RelaxNG schema (and the Schematron rules)
the `open511` package ships, the JSON is the same events in Open511's JSON form (as the
package's own converter reads the XML), ending a closure archives its event for a day, and
Open511's filters answer what they ask or a clear 400."""

import time
from datetime import timedelta
from urllib.parse import quote, urlsplit

import orjson
import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from lxml import etree, isoschematron
from open511.converter import xml_to_json
from open511.validator import RELAXNG_PATH, SCHEMATRON_PATH

from closures.services import create_closure, end_closure
from core.actors import Actor, Via
from demo.loader import load_demo
from tests.factories import TrailFactory, TrailSystemFactory
from tests.grooming.geo import path
from trails.models import Trail
from updates.services import create_update

pytestmark = pytest.mark.django_db

PATROL = Actor("patrol-uid", Via.API_KEY)
RELAXNG = etree.RelaxNG(etree.parse(RELAXNG_PATH))
SCHEMATRON = isoschematron.Schematron(etree.parse(SCHEMATRON_PATH))
DEMO_JURISDICTION = "demo-lost-trail-powder1.127.0.0.1"
OPEN511_ROUTES = [
    "open511.json",
    "open511.xml",
    "open511/jurisdiction",
    "open511/jurisdiction/geography",
]


def valid_xml(body: bytes) -> etree._Element:
    document = etree.fromstring(body)
    assert RELAXNG.validate(document), RELAXNG.error_log
    assert SCHEMATRON.validate(document), SCHEMATRON.error_log
    return document


def feed(system, suffix: str = "xml", query: str = "", status: int = 200):
    response = Client().get(f"/feeds/{system.pk}/open511.{suffix}{query}")
    assert response.status_code == status, response.content
    assert response["Access-Control-Allow-Origin"] == "*"
    return response


def events_of(system, query: str = "") -> dict[str, dict]:
    """The JSON feed's events by their id."""
    body = orjson.loads(feed(system, "json", query).content)
    return {event["id"]: event for event in body["events"]}


def without_urls(events: list[dict]) -> list[dict]:
    """An event's self link names the document it is in (.xml or .json)."""
    return [{key: value for key, value in event.items() if key != "url"} for event in events]


@pytest.fixture
def demo():
    system, _ = load_demo()
    ridge = Trail.objects.filter(trail_system=system, hidden=False).order_by("order").first()
    closure = create_closure(
        trail=ridge,
        actor=PATROL,
        reason="avalancheControl",
        ends_at=timezone.now() + timedelta(hours=3),
        note="Blasting <b>today</b>",
        detour="Take the valley road",
    )
    danger = create_update(
        system=system,
        type="notice",
        severity="danger",
        description="Avalanche danger high above the tree line.\nStay on open trails.",
        trail_ids=[ridge.pk],
        actor=PATROL,
    )
    return system, ridge, closure, danger


def test_the_demo_with_a_closure_and_a_danger_notice_is_valid_open511_in_both_forms(demo):
    system, ridge, closure, danger = demo
    xml = feed(system, "xml")
    assert xml["Content-Type"] == "application/xml; charset=utf-8"
    document = valid_xml(xml.content)
    assert document.get("{http://www.w3.org/XML/1998/namespace}lang") == "en"

    body = orjson.loads(feed(system, "json").content)
    assert body["meta"]["version"] == "v1"
    assert body["meta"]["url"].endswith(f"/feeds/{system.pk}/open511.json")
    as_json = orjson.loads(orjson.dumps(xml_to_json(document)))  # tuples to lists
    assert without_urls(as_json["events"]) == without_urls(body["events"])

    events = {event["id"]: event for event in body["events"]}
    stretch = events[f"{DEMO_JURISDICTION}/closure-{closure.pk}"]
    assert stretch["status"] == "ACTIVE"
    assert stretch["headline"] == f"Closed: {ridge.name} (Avalanche control)"
    assert stretch["event_type"] == "WEATHER_CONDITION"
    assert stretch["event_subtypes"] == ["AVALANCHE_HAZARD"]
    assert stretch["severity"] == "MAJOR"
    assert stretch["detour"] == "Take the valley road"
    assert "Blasting <b>today</b>" in stretch["description"]  # text, escaped in the XML
    assert stretch["geography"]["type"] in ("LineString", "MultiLineString")
    assert stretch["roads"] == [{"name": ridge.name, "direction": "BOTH", "state": "CLOSED"}]
    assert stretch["timezone"] == "America/Boise"  # the zone at its location
    start, end = stretch["schedule"]["intervals"][0].split("/")
    assert end > start
    assert stretch["jurisdiction_url"].endswith(f"/feeds/{system.pk}/open511/jurisdiction")

    warning = events[f"{DEMO_JURISDICTION}/notice-{danger.pk}"]
    assert warning["headline"] == "Avalanche danger high above the tree line."
    assert warning["severity"] == "MAJOR"
    assert warning["event_type"] == "INCIDENT"
    assert warning["roads"] == [{"name": ridge.name}]
    welcome = next(e for e in events.values() if e["headline"].startswith("Welcome to the demo"))
    assert welcome["severity"] == "MINOR"
    assert welcome["geography"]["type"] == "Polygon"  # the whole system: its extent

    one = events_of(system, "?id=" + quote(stretch["id"]))
    assert list(one) == [stretch["id"]]
    assert stretch["url"] == one[stretch["id"]]["url"]
    assert stretch["url"].startswith(body["meta"]["url"] + "?id=")


def test_ending_a_closure_archives_its_event_for_a_day(demo):
    system, ridge, closure, _ = demo
    key = f"{DEMO_JURISDICTION}/closure-{closure.pk}"
    before = events_of(system)[key]
    time.sleep(0.01)  # the end is a later millisecond than the last change
    end_closure(closure=closure, actor=PATROL)
    archived = events_of(system)[key]
    assert archived["status"] == "ARCHIVED"
    assert archived["updated"] > before["updated"]  # readers polling updated=> see it end
    assert key not in events_of(system, "?status=ACTIVE")
    assert key in events_of(system, "?status=ARCHIVED")
    assert key in events_of(system, "?updated=" + quote(">" + before["updated"]))
    valid_xml(feed(system, "xml").content)

    day_ago = timezone.now() - timedelta(hours=25)
    old = create_closure(trail=ridge, actor=PATROL, reason="mud", now=day_ago)
    end_closure(closure=old, actor=PATROL, now=day_ago + timedelta(minutes=30))
    assert not any(key.endswith(old.pk) for key in events_of(system, "?status=ALL"))


def test_a_closure_past_its_end_is_archived_before_the_sweep_settles_it(demo):
    system, ridge, _, _ = demo
    earlier = timezone.now() - timedelta(hours=3)
    closure = create_closure(
        trail=ridge, actor=PATROL, reason="ice", now=earlier, ends_at=earlier + timedelta(hours=2)
    )
    event = events_of(system)[f"{DEMO_JURISDICTION}/closure-{closure.pk}"]
    assert event["status"] == "ARCHIVED"


@pytest.fixture
def ridge(system):
    return TrailFactory(
        trail_system=system,
        name="Ridge Loop",
        geometry={"type": "LineString", "coordinates": path([(0, 0), (3000, 0)], step=50)},
    )


def test_a_planned_closure_is_active_with_its_coming_schedule(system, ridge):
    system.time_zone = "UTC"
    system.save()
    starts = timezone.now().replace(microsecond=0) + timedelta(days=2)
    create_closure(
        trail=ridge,
        actor=PATROL,
        start=1000.0,
        end=2000.0,
        reason="mud",
        starts_at=starts,
        ends_at=starts + timedelta(days=1),
    )
    (event,) = events_of(system).values()
    assert event["status"] == "ACTIVE"
    assert event["headline"] == "Partly closed: Ridge Loop (Mud)"
    assert event["event_type"] == "ROAD_CONDITION"
    assert event["event_subtypes"] == ["MUD"]
    assert event["schedule"]["intervals"] == [
        f"{starts:%Y-%m-%dT%H:%M}/{starts + timedelta(days=1):%Y-%m-%dT%H:%M}"
    ]
    assert not events_of(system, "?in_effect_on=now")
    assert events_of(system, f"?in_effect_on={quote((starts + timedelta(hours=1)).isoformat())}")


def test_the_filters_choose_events(system, ridge):
    closure = create_closure(trail=ridge, actor=PATROL, reason="fire")
    notice = create_update(
        system=system, type="notice", severity="warning", description="Icy", actor=PATROL
    )
    closure_key = next(key for key in events_of(system) if key.endswith(closure.pk))
    notice_key = next(key for key in events_of(system) if key.endswith(notice.pk))
    assert set(events_of(system, "?event_type=ROAD_CONDITION")) == {closure_key}
    assert set(events_of(system, "?event_type=incident,road_condition")) == {
        closure_key,
        notice_key,
    }
    assert set(events_of(system, "?severity=MODERATE")) == {notice_key}
    assert set(events_of(system, "?event_subtype=FIRE")) == {closure_key}
    west, south = path([(0, 0)])[0]
    assert set(events_of(system, f"?bbox={west - 0.01},{south - 0.01},{west},{south}")) == {
        closure_key,
        notice_key,
    }
    assert not events_of(system, "?bbox=10,10,11,11")
    future = quote(">" + (timezone.now() + timedelta(hours=1)).isoformat())
    assert not events_of(system, f"?updated={future}")
    assert not events_of(system, "?jurisdiction=other.example.org")
    xml = feed(system, "xml", "?severity=MAJOR")
    assert len(valid_xml(xml.content).findall("events/event")) == 1


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ("?status=OPEN", "status"),
        ("?event_type=AVALANCHE", "event_type"),
        ("?severity=", "severity"),
        ("?bbox=1,2,3", "bbox"),
        ("?bbox=10,10,5,5", "bbox"),
        ("?updated=yesterday", "updated"),
        ("?updated=>2026-11-29T08:00:00", "updated"),  # no offset
        ("?updated>2026-11-29T08:00:00Z", "updated"),  # Open511 writes updated=>...
        ("?in_effect_on=2026-01-01T00:00Z,2026-06-01T00:00Z", "in_effect_on"),
        ("?in_effect_on=2026-06-01T00:00Z,2026-01-01T00:00Z", "in_effect_on"),
    ],
)
def test_a_bad_filter_is_a_clear_400(system, query, named):
    for suffix in ("json", "xml"):
        error = orjson.loads(feed(system, suffix, query, status=400).content)["error"]
        assert error["code"] == "invalid_filter"
        assert error["message"].startswith(f"{named}: ")


def test_a_window_at_the_end_of_the_calendar_is_answered(system, ridge):
    """Its length is measured, not its end moved forty days past the last date there is."""
    query = "?in_effect_on=9999-12-31T23:00:00Z,9999-12-31T23:30:00Z"
    assert events_of(system, query) == {}


def test_another_version_is_refused(system):
    error = orjson.loads(feed(system, "json", "?version=v2", status=400).content)["error"]
    assert error["code"] == "unsupported_version"


def test_the_jurisdiction_names_the_system_its_licence_and_contact(system, ridge, settings):
    settings.FEEDS_LICENSE_URL = "https://opendatacommons.org/licenses/odbl/1-0/"
    settings.FEEDS_CONTACT_EMAIL = "trails@club.example.org"
    system.name, system.phone_number = "Pine Hill <Nordic>", "+1 406 555 0100"
    system.website = "https://pinehill.example.org"
    system.save()
    url = f"/feeds/{system.pk}/open511/jurisdiction"
    response = Client().get(url)
    assert response.status_code == 200
    assert response["Access-Control-Allow-Origin"] == "*"
    document = valid_xml(response.content)
    assert document.findtext("jurisdictions/jurisdiction/name") == "Pine Hill <Nordic>"
    body = orjson.loads(Client().get(url + "?format=json").content)
    (jurisdiction,) = body["jurisdictions"]
    assert jurisdiction == orjson.loads(orjson.dumps(xml_to_json(document)))["jurisdictions"][0]
    assert jurisdiction["license_url"] == "https://opendatacommons.org/licenses/odbl/1-0/"
    assert jurisdiction["email"] == "trails@club.example.org"
    assert jurisdiction["phone"] == "+1 406 555 0100"
    assert jurisdiction["description_url"] == "https://pinehill.example.org"
    geography = Client().get(urlsplit(jurisdiction["geography_url"]).path)
    area = valid_xml(geography.content)
    assert area.find("geographies/geography/{http://www.opengis.net/gml}Polygon") is not None
    error = orjson.loads(Client().get(url + "?format=csv").content)["error"]
    assert error["message"].startswith("format: ")


def test_the_jurisdiction_states_the_systems_own_licence(system, ridge):
    system.license_url = "https://opendatacommons.org/licenses/odbl/1-0/"
    system.save()
    body = orjson.loads(
        Client().get(f"/feeds/{system.pk}/open511/jurisdiction?format=json").content
    )
    assert body["jurisdictions"][0]["license_url"] == system.license_url


def test_the_default_contact_is_a_valid_address_on_a_host_without_a_domain(demo):
    system, *_ = demo
    valid_xml(Client().get(f"/feeds/{system.pk}/open511/jurisdiction").content)


@pytest.mark.parametrize("suffix", OPEN511_ROUTES)
def test_an_inactive_or_unknown_system_has_no_open511_feeds(client, suffix):
    inactive = TrailSystemFactory(inactive=True)
    assert client.get(f"/feeds/{inactive.pk}/{suffix}").status_code == 404
    assert client.get(f"/feeds/nope/{suffix}").status_code == 404


def test_a_notice_only_about_hidden_trails_and_closures_of_hidden_trails_are_left_out(system):
    hidden = TrailFactory(trail_system=system, hidden=True)
    create_closure(trail=hidden, actor=PATROL, reason="washout")
    create_update(
        system=system, type="notice", description="Secret", trail_ids=[hidden.pk], actor=PATROL
    )
    assert events_of(system) == {}


def test_what_xml_cannot_hold_is_left_out_of_both_forms(system, ridge):
    create_update(system=system, type="notice", description="Bell\x07 at the gate", actor=PATROL)
    create_closure(trail=ridge, actor=PATROL, reason="other", note="Tab\tand\x0bform")
    document = valid_xml(feed(system, "xml").content)
    events = events_of(system)
    as_json = orjson.loads(orjson.dumps(xml_to_json(document)))
    assert without_urls(as_json["events"]) == without_urls(list(events.values()))
    assert any(event["headline"] == "Bell at the gate" for event in events.values())


@pytest.mark.parametrize("suffix", OPEN511_ROUTES)
def test_every_open511_feed_is_readable_elsewhere_and_answers_304_to_its_etag(demo, suffix):
    system, *_ = demo
    client = Client(headers={"Origin": "https://elsewhere.example"})
    first = client.get(f"/feeds/{system.pk}/{suffix}")
    assert first.status_code == 200
    assert first["Access-Control-Allow-Origin"] == "*"
    assert first["Cache-Control"] == "public, max-age=60"
    again = client.get(f"/feeds/{system.pk}/{suffix}", headers={"If-None-Match": first["ETag"]})
    assert again.status_code == 304


def test_the_feed_reads_as_many_queries_for_many_events_as_for_one(system, ridge):
    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            feed(system, "json")
        return len(captured)

    create_closure(trail=ridge, actor=PATROL, reason="mud", start=0.0, end=500.0)
    create_update(system=system, type="notice", description="One", actor=PATROL)
    few = queries()
    for number in range(5):
        trail = TrailFactory(trail_system=system)
        create_closure(trail=trail, actor=PATROL, reason="ice")
        create_update(
            system=system,
            type="notice",
            description=f"N{number}",
            trail_ids=[trail.pk],
            actor=PATROL,
        )
    assert queries() == few
