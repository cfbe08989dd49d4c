"""One rule, every write path: the API, the web app's form post, the importer and bulk status
give the same data, because each of them calls the same service."""

import json
import re
from datetime import timedelta

import pytest
from django.contrib import admin
from django.test import RequestFactory
from django.urls import reverse
from django.utils import timezone

from apikeys.models import ApiKey
from core.actors import Actor, Via
from core.errors import Invalid
from publishing.models import CompileRequest
from schedules.models import Schedule
from tests.factories import (
    PointFactory,
    TrailActivityFactory,
    TrailFactory,
    UserFactory,
    create_api_key,
    line,
)
from tests.webapp.browser_form import untouched_post
from trails.importing import create_trail_system
from trails.models import StatusChange, Trail
from updates.models import Update
from updates.services import create_update

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff(client):
    client.force_login(UserFactory(uid="uid-staff", is_staff=True, is_superuser=True))
    return client


def page_text(html: str) -> str:
    """The page's text, its tags and runs of white space as single spaces."""
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def change_page(trail: Trail) -> str:
    return reverse("admin:trails_trail_change", args=[trail.pk])


def web_app_post(staff, trail: Trail, **changes) -> None:
    """The trail's page as the browser submits it, with `changes` typed in."""
    form = untouched_post(staff.get(change_page(trail)).content.decode(), "trail_form")
    response = staff.post(change_page(trail), form | changes)
    assert response.status_code == 302, response.content.decode()[:2000]


def imported_trail(status: str, activities: list[dict]) -> Trail:
    feature = {
        "type": "Feature",
        "geometry": line(),
        "properties": {"name": "Imported", "status": status, "activities": activities},
    }
    system = create_trail_system(
        name="Imported",
        owner_uid="uid-owner",
        collection={"type": "FeatureCollection", "features": [feature]},
    )
    return Trail.objects.get(trail_system=system)


def open_trail(system) -> Trail:
    trail = TrailFactory(trail_system=system, status="Open")
    TrailActivityFactory(trail=trail, value="skiing", status="Open", position=0)
    TrailActivityFactory(trail=trail, value="snowshoeing", status="Caution", position=1)
    return trail


def close_through(path: str, system, manager, staff) -> Trail:
    """Set a trail with open activities Closed along `path`; the trail as stored after."""
    if path == "importer":
        activities = [
            {"value": "skiing", "status": "Open"},
            {"value": "snowshoeing", "status": "Caution"},
        ]
        return imported_trail("Closed", activities)
    trail = open_trail(system)
    if path == "api":
        response = manager.patch(f"/api/v1/trails/{trail.pk}", {"status": "Closed"}, format="json")
        assert response.status_code == 200
    elif path == "web app":
        web_app_post(staff, trail, status="Closed")
    elif path == "bulk status":
        body = {"status": "Closed", "trailIds": [trail.pk]}
        response = manager.post(
            f"/api/v1/trail-systems/{system.pk}/trails/status", body, format="json"
        )
        assert response.status_code == 200
    return Trail.objects.get(pk=trail.pk)


@pytest.mark.parametrize("path", ["api", "web app", "importer", "bulk status"])
def test_closed_closes_every_activity_on_every_path(path, system, manager, staff):
    trail = close_through(path, system, manager, staff)
    assert trail.status == "Closed"
    assert set(trail.activities.values_list("status", flat=True)) == {"Closed"}


@pytest.mark.parametrize(
    ("path", "via"), [("api", "id-token"), ("web app", "web-app"), ("bulk status", "bulk")]
)
def test_closing_is_recorded_with_its_path_on_every_path(path, via, system, manager, staff):
    trail = close_through(path, system, manager, staff)
    recorded = {
        (change.field, change.activity, change.old_value, change.new_value, change.via)
        for change in StatusChange.objects.filter(trail=trail)
    }
    assert recorded == {
        ("status", "", "Open", "Closed", via),
        ("status", "skiing", "Open", "Closed", via),
        ("status", "snowshoeing", "Caution", "Closed", via),
    }
    uids = set(StatusChange.objects.filter(trail=trail).values_list("uid", flat=True))
    assert uids == {"uid-staff" if path == "web app" else system.owner.pk}


def test_an_api_key_change_records_the_key(system, client_for):
    trail = open_trail(system)
    key, plaintext = create_api_key(system.owner)
    from_key = client_for(credential=plaintext)
    response = from_key.patch(f"/api/v1/trails/{trail.pk}", {"status": "Caution"}, format="json")
    assert response.status_code == 200
    change = StatusChange.objects.get(trail=trail, activity="")
    assert (change.via, change.uid, change.old_value, change.new_value) == (
        "api-key",
        system.owner.pk,
        "Open",
        "Caution",
    )
    assert change.key_id == key.pk


def test_the_untouched_trail_form_leaves_the_activities_as_they_were(system, staff):
    trail = TrailFactory(trail_system=system, status="None")
    TrailActivityFactory(trail=trail, value="skiing", status="Caution", difficulty="circle")
    before = list(trail.activities.values_list("value", "status", "difficulty", "position"))

    web_app_post(staff, trail)

    after = list(trail.activities.values_list("value", "status", "difficulty", "position"))
    assert after == before
    assert Trail.objects.get(pk=trail.pk).status == "None"
    assert not StatusChange.objects.filter(trail=trail).exists()


def test_the_untouched_form_of_a_trail_without_activities_adds_none(system, staff):
    trail = TrailFactory(trail_system=system, status="None")
    web_app_post(staff, trail)
    assert not trail.activities.exists()


# Elevations whenever a geometry is set


def elevations_after(path: str, system, manager, staff, on_commit) -> list | None:
    with on_commit(execute=True):
        if path == "importer":
            trail = imported_trail("Open", [])
        elif path == "api":
            body = {"name": "New", "geometry": line()}
            response = manager.post(
                f"/api/v1/trail-systems/{system.pk}/trails", body, format="json"
            )
            assert response.status_code == 201
            trail = Trail.objects.get(pk=response.json()["id"])
        else:
            trail = TrailFactory(trail_system=system)
            Trail.objects.filter(pk=trail.pk).update(elevations=[1.0] * 50)
            web_app_post(staff, trail, geometry=json.dumps(line(-113.5, 45.5, n=4)))
    return Trail.objects.get(pk=trail.pk).elevations


@pytest.mark.parametrize("path", ["api", "web app", "importer"])
def test_a_geometry_set_on_any_path_gets_its_elevation_profile(
    path, system, manager, staff, django_capture_on_commit_callbacks
):
    profile = elevations_after(path, system, manager, staff, django_capture_on_commit_callbacks)
    assert profile is not None and len(profile) == 50
    assert profile != [1.0] * 50  # the web app's new geometry replaced the old profile


def test_the_trail_and_point_pages_show_the_status_history(system, manager, staff):
    trail = open_trail(system)
    manager.patch(f"/api/v1/trails/{trail.pk}", {"status": "Caution"}, format="json")
    page = staff.get(change_page(trail)).content.decode()
    assert "Status history" in page
    assert "Status Open Caution" in page_text(page)  # words, not JSON
    assert "ID token" in page  # the path it came by
    assert reverse("admin:trails_trail_history", args=[trail.pk]) in page  # and the rest

    point = PointFactory(trail_system=system, wait_time=5)
    manager.patch(f"/api/v1/points/{point.pk}", {"waitTime": 25}, format="json")
    page = staff.get(reverse("admin:trails_point_change", args=[point.pk])).content.decode()
    assert "Wait time 5 25" in page_text(page)


@pytest.mark.parametrize("path", ["api", "web app", "importer", "bulk status"])
def test_every_path_stamps_who_changed_the_trail_and_queues_a_compile(path, system, manager, staff):
    trail = close_through(path, system, manager, staff)
    expected = {"web app": "uid-staff", "importer": "uid-owner"}.get(path, system.owner.pk)
    assert trail.updated_by == expected
    assert CompileRequest.objects.filter(trail_system=trail.trail_system).exists()


# Updates: related trails show the update in their updatedOn, on the API and in the web app


@pytest.mark.parametrize("path", ["api", "web app"])
def test_an_update_touches_the_trails_it_attaches_to_on_every_path(path, system, manager, staff):
    trail = TrailFactory(trail_system=system)
    Trail.objects.filter(pk=trail.pk).update(updated_on=timezone.now() - timedelta(days=3))
    if path == "api":
        body = {"type": "surfaceConditions", "conditions": ["icy"], "trailIds": [trail.pk]}
        response = manager.post(f"/api/v1/trail-systems/{system.pk}/updates", body, format="json")
        assert response.status_code == 201
    else:
        form = {
            "trail_system": system.pk,
            "type": "surfaceConditions",
            "expiration_date_0": "2099-01-01",
            "expiration_date_1": "12:00:00",
            "trail_ids": [trail.pk],
            "conditions": ["icy"],
        }
        response = staff.post(reverse("admin:updates_update_add"), form)
        assert response.status_code == 302
    update = Update.objects.get(trail_system=system)
    assert list(update.trails.all()) == [trail]
    assert Trail.objects.get(pk=trail.pk).updated_on > timezone.now() - timedelta(minutes=1)


# A save the service refuses comes back as a form error with the input; nothing is written


def past_notice(system) -> dict:
    return {
        "trail_system": system.pk,
        "type": "notice",
        "expiration_date_0": "2001-01-01",
        "expiration_date_1": "12:00:00",
        "description": "Typed before the refusal.",
        "severity": "warning",
    }


def test_a_refused_new_update_shows_the_error_on_its_field_with_the_input(system, staff):
    response = staff.post(reverse("admin:updates_update_add"), past_notice(system))
    assert response.status_code == 200
    form = response.context["adminform"].form
    assert form.errors == {"expiration_date": ["Must be in the future."]}
    page = response.content.decode()
    assert "Typed before the refusal." in page and "2001-01-01" in page
    assert not Update.objects.filter(trail_system=system).exists()


@pytest.mark.parametrize(
    ("model", "field"),
    [
        (Update, "trail_ids"),
        (Schedule, "trail_ids"),
        (Schedule, "starts_at"),
        (Schedule, "ends_at"),
        (ApiKey, "trail_system_ids"),
    ],
)
def test_a_refusal_naming_the_services_field_shows_on_the_form_field(system, model, field):
    """The web app's forms name their fields as the services do (`trail_ids`, `starts_at`,
    `trail_system_ids`): a refusal is shown on the field it names, with no map between."""
    request = RequestFactory().post("/")
    request.user = UserFactory(is_staff=True, is_superuser=True)
    request.service_refusal = Invalid("invalid_field", "refused here.", field=field)
    form = admin.site._registry[model].get_form(request)(data=past_notice(system))
    assert "Refused here." in form.errors[field]
    assert "__all__" not in form.errors


def test_the_api_error_and_the_form_error_come_from_the_refusals_one_field(
    system, staff, client_for
):
    """The service says which field it refuses once, as data, in its own name: the API's
    envelope names it camel-cased before the message, the web app's form shows the message on
    that field."""
    with pytest.raises(Invalid) as refused:
        create_update(
            system=system,
            type="notice",
            description="x",
            expiration_date=timezone.now(),
            actor=Actor(system.owner.pk, Via.ID_TOKEN),
        )
    refusal = refused.value
    assert (refusal.code, refusal.field, refusal.message) == (
        "invalid_field",
        "expiration_date",
        "must be in the future.",
    )

    body = {"type": "notice", "description": "x", "expirationDate": "2001-01-01T12:00:00Z"}
    api = client_for(system.owner).post(
        f"/api/v1/trail-systems/{system.pk}/updates", body, format="json"
    )
    assert api.status_code == 400
    assert api.json() == {
        "error": {"code": "invalid_field", "message": "expirationDate: must be in the future."}
    }

    page = staff.post(reverse("admin:updates_update_add"), past_notice(system))
    assert page.context["adminform"].form.errors == {"expiration_date": ["Must be in the future."]}


def test_a_refused_change_keeps_the_row_as_it_was(system, staff):
    add = staff.post(
        reverse("admin:updates_update_add"),
        past_notice(system)
        | {
            "expiration_date_0": "2099-01-01",
            "description": "As published.",
        },
    )
    assert add.status_code == 302
    update = Update.objects.get(trail_system=system)
    change = reverse("admin:updates_update_change", args=[update.pk])
    response = staff.post(change, past_notice(system))
    assert response.status_code == 200
    assert response.context["adminform"].form.errors == {
        "expiration_date": ["Must be in the future."]
    }
    assert "Typed before the refusal." in response.content.decode()
    stored = Update.objects.get(pk=update.pk)
    assert (stored.description, stored.expiration_date.year) == ("As published.", 2099)


def test_saving_an_untouched_update_form_changes_nothing(system, staff):
    form = past_notice(system) | {"expiration_date_0": "2099-01-01"}
    assert staff.post(reverse("admin:updates_update_add"), form).status_code == 302
    update = Update.objects.get(trail_system=system)
    response = staff.post(reverse("admin:updates_update_change", args=[update.pk]), form)
    assert response.status_code == 302
    assert Update.objects.get(pk=update.pk).updated_on == update.updated_on


def test_a_refused_trail_system_change_keeps_the_typed_website_and_the_stored_one(system, staff):
    page = reverse("admin:trails_trailsystem_change", args=[system.pk])
    too_long = "example.com/" + "a" * 1988  # fits the column, not once http:// is added
    form = untouched_post(staff.get(page).content.decode(), "trailsystem_form")
    response = staff.post(page, form | {"website": too_long})
    assert response.status_code == 200
    assert response.context["adminform"].form.errors == {
        "website": ["At most 2000 characters with its http:// prefix."]
    }
    assert too_long in response.content.decode()
    assert type(system).objects.get(pk=system.pk).website == system.website
