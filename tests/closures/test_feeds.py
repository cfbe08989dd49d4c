"""The Atom and iCalendar feeds list closed stretches: what, where, until when and the detour
(text from data stays text)."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from icalendar import Calendar

from closures.services import create_closure
from core.actors import Actor, Via
from tests.factories import TrailFactory
from tests.grooming.geo import path

pytestmark = pytest.mark.django_db

PATROL = Actor("patrol-uid", Via.API_KEY)


@pytest.fixture
def closure(system):
    ridge = TrailFactory(
        trail_system=system,
        name="Ridge Loop",
        geometry={"type": "LineString", "coordinates": path([(0, 0), (3000, 0)], step=50)},
    )
    return create_closure(
        trail=ridge,
        actor=PATROL,
        start=1000.0,
        end=2000.0,
        reason="avalancheControl",
        ends_at=timezone.now() + timedelta(hours=3),
        note="Blasting <b>today</b>",
        detour="Valley road",
    )


def test_the_atom_feed_lists_a_closed_stretch(system, closure):
    body = Client().get(f"/feeds/{system.pk}.atom").content.decode()
    assert "Partly closed: Ridge Loop (Avalanche control)" in body
    assert "Closed stretch: 1.0 km" in body
    assert "Detour: Valley road" in body
    assert "Blasting &amp;lt;b&amp;gt;today" in body  # escaped, then escaped as XML


def test_the_calendar_lists_a_closed_stretch_until_its_end(system, closure):
    calendar = Calendar.from_ical(Client().get(f"/feeds/{system.pk}.ics").content)
    events = [e for e in calendar.walk("VEVENT") if str(e["uid"]).startswith("closure-")]
    assert len(events) == 1
    event = events[0]
    assert str(event["summary"]) == "Partly closed: Ridge Loop (Avalanche control)"
    assert event.decoded("dtend") == closure.ends_at.replace(microsecond=0)
    assert "Detour: Valley road" in str(event["description"])
