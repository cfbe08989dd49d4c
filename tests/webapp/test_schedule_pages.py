"""The web app's scheduled changes: made, refused and changed through schedules.services, with
the times in the system's zone; and the trail system's time zone field."""

from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone

from schedules.models import Schedule
from tests.factories import MembershipFactory, ScheduleFactory, TrailFactory, TrailSystemFactory

pytestmark = pytest.mark.django_db

SCHEDULES = "/admin/schedules/schedule/"
ZONE = ZoneInfo("America/Denver")


def signed_in(client, user):
    client.force_login(user, backend="webapp.backends.RoleBackend")
    return client


@pytest.fixture
def trustee(client):
    membership = MembershipFactory(
        user__uid="trustee", trail_system__time_zone="America/Denver", role="Trustee"
    )
    signed_in(client, membership.user)
    return membership


def local_day(days: int) -> str:
    return (timezone.now().astimezone(ZONE) + timedelta(days=days)).date().isoformat()


def form(system, trails, **fields) -> dict:
    return {
        "trail_system": system.pk,
        "trail_ids": [trail.pk for trail in trails],
        "activity": "",
        "status": "Closed",
        "repeat": "once",
        "starts_at_0": local_day(3),
        "starts_at_1": "16:00",
        "ends_at_0": local_day(4),
        "ends_at_1": "08:00",
        "start_time": "",
        "end_time": "",
        "end_status": "",
        "reason": "Giant slalom race",
        **fields,
    }


def test_a_trustee_schedules_a_one_off_closure(client, trustee):
    system = trustee.trail_system
    trail = TrailFactory(trail_system=system)
    response = client.post(f"{SCHEDULES}add/", form(system, [trail]))
    assert response.status_code == 302, response.content.decode()[-2000:]
    schedule = Schedule.objects.get()
    assert (schedule.created_by, schedule.reason, schedule.repeat) == (
        "trustee",
        "Giant slalom race",
        "once",
    )
    assert list(schedule.trails.all()) == [trail]
    page = client.get(f"{SCHEDULES}{schedule.pk}/change/").content.decode()
    assert "America/Denver" in page
    assert f"{local_day(3)} 16:00 America/Denver" in page  # the next change


def test_a_start_in_the_past_is_refused_on_its_field(client, trustee):
    system = trustee.trail_system
    trail = TrailFactory(trail_system=system)
    response = client.post(f"{SCHEDULES}add/", form(system, [trail], starts_at_0=local_day(-2)))
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert list(errors) == ["starts_at"]
    assert errors["starts_at"][0].startswith("Must be in the future")
    assert not Schedule.objects.exists()


def test_a_daily_schedule_with_a_day_of_a_one_off_is_refused_by_name(client, trustee):
    system = trustee.trail_system
    trail = TrailFactory(trail_system=system)
    response = client.post(
        f"{SCHEDULES}add/",
        form(system, [trail], repeat="daily", start_time="21:00", ends_at_0="", ends_at_1=""),
    )
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert list(errors) == ["starts_at"]
    assert errors["starts_at"][0].startswith("Only for a one-off schedule")


def test_an_end_without_its_time_is_refused_on_its_field(client, trustee):
    system = trustee.trail_system
    trail = TrailFactory(trail_system=system)
    response = client.post(f"{SCHEDULES}add/", form(system, [trail], ends_at_1=""))
    assert response.context["adminform"].form.errors == {
        "ends_at": ["Give the time as well as the day."]
    }


def test_an_end_before_the_start_is_refused_in_words(client, trustee):
    system = trustee.trail_system
    trail = TrailFactory(trail_system=system)
    response = client.post(f"{SCHEDULES}add/", form(system, [trail], ends_at_0=local_day(2)))
    assert response.context["adminform"].form.errors == {"ends_at": ["Must be after the start."]}


def test_a_one_off_shows_its_start_and_end_in_their_fields_and_saves_unchanged(client, trustee):
    system = trustee.trail_system
    trail = TrailFactory(trail_system=system)
    assert client.post(f"{SCHEDULES}add/", form(system, [trail])).status_code == 302
    schedule = Schedule.objects.get()
    page = client.get(f"{SCHEDULES}{schedule.pk}/change/").content.decode()
    assert f'name="starts_at_0" value="{local_day(3)}"' in page
    assert 'name="starts_at_1" value="16:00"' in page
    assert 'name="start_time" value=' not in page  # a daily schedule's
    body = form(system, [trail], reason="Giant slalom race, moved")
    assert client.post(f"{SCHEDULES}{schedule.pk}/change/", body).status_code == 302
    schedule.refresh_from_db()
    assert (schedule.reason, schedule.end_time.strftime("%H:%M")) == (
        "Giant slalom race, moved",
        "08:00",
    )


def test_a_daily_night_closure_and_a_change_of_its_time(client, trustee):
    system = trustee.trail_system
    trail = TrailFactory(trail_system=system)
    body = form(
        system,
        [trail],
        repeat="daily",
        starts_at_0="",
        starts_at_1="",
        ends_at_0="",
        ends_at_1="",
        start_time="21:00",
        end_time="08:30",
        end_status="Open",
    )
    assert client.post(f"{SCHEDULES}add/", body).status_code == 302
    schedule = Schedule.objects.get()
    body["start_time"] = "22:00"
    assert client.post(f"{SCHEDULES}{schedule.pk}/change/", body).status_code == 302
    schedule.refresh_from_db()
    assert schedule.start_time.strftime("%H:%M") == "22:00"
    assert schedule.updated_by == "trustee"


def test_trails_of_another_system_are_refused(client, trustee):
    system = trustee.trail_system
    elsewhere = TrailFactory()
    response = client.post(f"{SCHEDULES}add/", form(system, [elsewhere]))
    assert response.status_code == 200
    assert not Schedule.objects.exists()


def test_the_list_shows_each_schedule_of_the_persons_systems_only(client, trustee):
    system = trustee.trail_system
    ours = ScheduleFactory(trail_system=system, trails=[TrailFactory(trail_system=system)])
    ScheduleFactory(trail_system=TrailSystemFactory(name="Theirs"))
    page = client.get(SCHEDULES).content.decode()
    assert f"{SCHEDULES}{ours.pk}/change/" in page
    assert "Theirs" not in page
    assert "21:00 \u2192 08:30" in page


def test_the_page_in_french(client, trustee):
    page = client.get(f"{SCHEDULES}add/", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "Retour à ce qu'il était" in page
    assert "Chaque jour" in page


def test_the_breadcrumbs_name_each_step_once(client, trustee):
    response = client.get(f"{SCHEDULES}add/")
    crumbs = response.content.decode().split('<div class="breadcrumbs">')[1].split("</div>")[0]
    assert "Schedules" in crumbs
    assert crumbs.count("Scheduled changes") == 1


def test_an_administrator_sets_the_time_zone_or_leaves_it_to_the_location(client):
    system = TrailSystemFactory(lat=46.0, lng=-72.0)
    signed_in(client, system.owner)
    page = client.get(f"/admin/trails/trailsystem/{system.pk}/change/").content.decode()
    assert "From the system&#x27;s location (now America/Toronto)" in page
