"""A trail system's `timeZone`: set by its Administrators (PATCH, web app), else derived from
its location (its geolocation, else the centre of its trails), else UTC."""

import pytest

from tests.config.api_surface import assert_envelope
from tests.factories import MembershipFactory, TrailFactory, TrailSystemFactory, line
from trails.models import TrailSystem
from trails.timezones import zone_name

pytestmark = pytest.mark.django_db


def url(system) -> str:
    return f"/api/v1/trail-systems/{system.pk}"


def test_derived_from_the_geolocation(client_for):
    system = TrailSystemFactory(lat=46.0, lng=-72.0)  # Québec
    assert client_for(system.owner).get(url(system)).json()["timeZone"] == "America/Toronto"


def test_without_a_geolocation_the_centre_of_the_trails_decides():
    system = TrailSystemFactory(lat=None, lng=None)
    TrailFactory(trail_system=system, geometry=line(6.80, 45.90))  # Chamonix
    TrailFactory(trail_system=system, geometry=line(6.90, 45.96))
    assert zone_name(system) == "Europe/Paris"


def test_without_any_location_it_is_utc():
    assert zone_name(TrailSystemFactory(lat=None, lng=None)) == "UTC"


def test_set_by_patch_then_cleared_with_null(client_for):
    system = TrailSystemFactory(lat=45.69, lng=-113.95)
    manager = client_for(system.owner)
    body = manager.patch(url(system), {"timeZone": "America/Edmonton"}, format="json").json()
    assert body["timeZone"] == "America/Edmonton"
    assert TrailSystem.objects.get(pk=system.pk).time_zone == "America/Edmonton"
    body = manager.patch(url(system), {"timeZone": None}, format="json").json()
    assert body["timeZone"] == "America/Boise"
    assert TrailSystem.objects.get(pk=system.pk).time_zone == ""


@pytest.mark.parametrize("value", ["Mars/Olympus_Mons", "america/denver", "", 7, "localtime"])
def test_an_unknown_zone_is_invalid_field(client_for, value):
    system = TrailSystemFactory()
    response = client_for(system.owner).patch(url(system), {"timeZone": value}, format="json")
    error = assert_envelope(response, 400, "invalid_field")
    assert error["message"].startswith("timeZone:")
    assert TrailSystem.objects.get(pk=system.pk).time_zone == ""


def test_only_an_administrator_sets_it(client_for):
    member = MembershipFactory(role="Trustee")
    response = client_for(member.user).patch(
        url(member.trail_system), {"timeZone": "Europe/Paris"}, format="json"
    )
    assert_envelope(response, 403, "admin_required")


def test_a_geolocation_wins_over_the_trails():
    system = TrailSystemFactory(lat=None, lng=None)
    TrailFactory(trail_system=system, geometry=line(-123.1, 49.3), lat=49.3, lng=-123.1)
    assert zone_name(system) == "America/Vancouver"
    system.lat, system.lng = 45.69, -113.95
    assert zone_name(system) == "America/Boise"
