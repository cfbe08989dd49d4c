"""The lists of subscribers, deliveries and schedules say their times in the systems' zone
and name it, as the list of updates does: a manager in Boise never reads UTC unnamed."""

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
from django.utils import formats, timezone, translation

from tests.factories import ScheduleFactory, SubscriberFactory, TrailSystemFactory, UserFactory
from updates.models import Subscriber

pytestmark = pytest.mark.django_db

SUBSCRIBERS = "/admin/updates/subscriber/"
SCHEDULES = "/admin/schedules/schedule/"
SIGNED_UP = datetime(2026, 1, 15, 12, 0, tzinfo=UTC)


def signed_in(client, user):
    client.force_login(user, backend="webapp.backends.RoleBackend")
    return client


def shown(moment: datetime, zone: str) -> str:
    """A time as the admin's lists print it, in English, in `zone`."""
    with translation.override("en"):
        return formats.localize(timezone.localtime(moment, ZoneInfo(zone)))


def test_the_subscribers_of_a_system_are_listed_in_its_zone_named(client):
    system = TrailSystemFactory(time_zone="America/Boise")
    subscriber = SubscriberFactory(trail_system=system)
    Subscriber.objects.filter(pk=subscriber.pk).update(created_on=SIGNED_UP)

    page = signed_in(client, system.owner).get(SUBSCRIBERS).content.decode()

    assert "Times are in America/Boise." in page
    assert shown(SIGNED_UP, "America/Boise") in page
    assert shown(SIGNED_UP, "UTC") not in page


def test_a_list_of_systems_in_several_zones_says_utc(client):
    super_admin = UserFactory(is_super_admin=True)
    for zone in ("America/Boise", "Europe/Paris"):
        SubscriberFactory(trail_system=TrailSystemFactory(time_zone=zone))

    page = signed_in(client, super_admin).get(SUBSCRIBERS).content.decode()

    assert "Times are in UTC." in page


def test_schedules_of_systems_in_several_zones_name_each_rows_zone(client):
    super_admin = UserFactory(is_super_admin=True)
    boise = TrailSystemFactory(time_zone="America/Boise")
    ScheduleFactory(trail_system=boise)
    ScheduleFactory(trail_system=TrailSystemFactory(time_zone="Europe/Paris"))
    signed_in(client, super_admin)

    every = client.get(SCHEDULES).content.decode()
    one = client.get(SCHEDULES, {"trail_system__id__exact": boise.pk}).content.decode()

    assert "Times are in each trail system&#x27;s zone, named on its row." in every
    assert "21:00 \u2192 08:30 (America/Boise)" in every
    assert "21:00 \u2192 08:30 (Europe/Paris)" in every
    assert "Times are in America/Boise." in one
    assert "(America/Boise)" not in one


def test_a_subscribers_page_shows_its_times_in_the_systems_zone_named(client):
    system = TrailSystemFactory(time_zone="America/Boise")
    subscriber = SubscriberFactory(trail_system=system)
    Subscriber.objects.filter(pk=subscriber.pk).update(created_on=SIGNED_UP)
    super_admin = UserFactory(is_super_admin=True)

    page = signed_in(client, super_admin).get(f"{SUBSCRIBERS}{subscriber.pk}/change/")
    text = page.content.decode()

    assert "Times are in America/Boise." in text
    assert shown(SIGNED_UP, "America/Boise") in text
    assert shown(SIGNED_UP, "UTC") not in text
