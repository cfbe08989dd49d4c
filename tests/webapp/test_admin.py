"""The web app (Django admin) as a staff superuser: every page loads, writes queue compiles."""

import json

import pytest
from django.contrib import admin
from django.contrib.auth.models import Group
from django.contrib.messages import get_messages
from django.contrib.messages.storage.fallback import FallbackStorage
from django.test import Client, RequestFactory
from django.urls import reverse

from apikeys.models import ApiKey, User
from core.actors import Actor, Via
from publishing.models import CompileRequest
from tests.factories import (
    MembershipFactory,
    PointFactory,
    ScheduleFactory,
    SubscriberFactory,
    TrailActivityFactory,
    TrailFactory,
    TrailSystemFactory,
    UpdateFactory,
    UserFactory,
    create_api_key,
    line,
)
from trails.models import Point, Trail, TrailSystem, TrashedPoint, TrashedTrail
from trails.trash import trash_point, trash_trail
from updates.models import Delivery, Subscriber, Update
from webapp.admin.base import delete_selected
from webhooks.models import WebhookDelivery
from webhooks.services import create_endpoint, send_test_event

pytestmark = pytest.mark.django_db

EXPECTED_MODELS = {
    "TrailSystem", "Trail", "Point", "TrashedTrail", "TrashedPoint", "Update", "Subscriber",
    "Delivery", "ApiKey", "User", "CompileRequest", "Schedule", "WebhookEndpoint",
    "WebhookDelivery",
}  # fmt: skip


@pytest.fixture
def staff_user():
    return UserFactory(uid="uid-staff", is_staff=True, is_superuser=True)


@pytest.fixture
def staff(client, staff_user):
    client.force_login(staff_user)
    return client


@pytest.fixture
def system():
    """A system with at least one row of every model the admin shows."""
    system = TrailSystemFactory()
    MembershipFactory(trail_system=system)
    activity = TrailActivityFactory(trail__trail_system=system)
    PointFactory(trail_system=system)
    trash_trail(trail=TrailFactory(trail_system=system), actor=Actor("uid-x", Via.WEB_APP))
    trash_point(point=PointFactory(trail_system=system), actor=Actor("uid-x", Via.WEB_APP))
    update = UpdateFactory(trail_system=system)
    update.trails.add(activity.trail)
    ScheduleFactory(trail_system=system, trails=[activity.trail])
    subscriber = SubscriberFactory(trail_system=system)
    Delivery.objects.create(update=update, subscriber=subscriber, channel="email")
    create_api_key(system.owner)
    endpoint = create_endpoint(
        system=system,
        url="https://hooks.example.org/admin",
        events=["update.created"],
        actor=Actor("uid-x", Via.WEB_APP),
    ).endpoint
    send_test_event(endpoint=endpoint, actor=Actor("uid-x", Via.WEB_APP))
    Group.objects.create(name="Groomers")
    # A failed sign-in: what the lockout pages (django-axes) list.
    Client().post("/admin/login/", {"username": "uid-x", "password": "wrong"})
    CompileRequest.objects.all().delete()
    return system


def url(model, view: str, *args) -> str:
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{view}", args=args)


def compiles(system) -> int:
    return CompileRequest.objects.filter(trail_system=system).count()


def notice_form(system, **fields) -> dict:
    """The update page's form for a notice of `system`."""
    return {
        "trail_system": system.pk,
        "type": "notice",
        "expiration_date_0": "2099-01-01",
        "expiration_date_1": "12:00:00",
        "description": "x",
        "severity": "info",
        **fields,
    }


def point_form(point, system, **fields) -> dict:
    """The point page's form for `point`, in `system`."""
    return {
        "trail_system": system.pk,
        "name": point.name,
        "marker_class": point.marker_class,
        "status": point.status,
        "lat": "45.7",
        "lng": "-113.9",
        **fields,
    }


def test_every_registered_model_has_working_changelist_change_and_add_pages(
    staff, staff_user, system
):
    CompileRequest.objects.create(trail_system=system, reason="test")
    request = RequestFactory().get("/admin/")
    request.user = staff_user
    for model, model_admin in admin.site._registry.items():
        assert staff.get(url(model, "changelist")).status_code == 200, model
        obj = model_admin.get_queryset(request).first()
        assert obj is not None, f"no {model.__name__} to show"
        assert staff.get(url(model, "change", obj.pk)).status_code == 200, model
        if model_admin.has_add_permission(request):
            assert staff.get(url(model, "add")).status_code == 200, model
    assert {model.__name__ for model in admin.site._registry} >= EXPECTED_MODELS


def test_the_trash_lists_only_trashed_rows_and_restore_brings_them_back(staff, system):
    trashed_trail = Trail.trash.get(trail_system=system)
    page = staff.get(url(TrashedTrail, "changelist")).content.decode()
    assert trashed_trail.name in page
    assert Trail.objects.get(trail_system=system).name not in page

    response = staff.post(
        url(TrashedTrail, "changelist"),
        {"action": "restore", "_selected_action": [trashed_trail.pk]},
        follow=True,
    )

    assert "Restored from the trash: 1." in response.content.decode()
    restored = Trail.objects.get(pk=trashed_trail.pk)
    assert (restored.trashed_on, restored.updated_by) == (None, "uid-staff")
    assert compiles(system) == 1


def test_restoring_a_point_from_the_trash(staff, system):
    trashed = Point.trash.get(trail_system=system)
    staff.post(
        url(TrashedPoint, "changelist"), {"action": "restore", "_selected_action": [trashed.pk]}
    )
    assert Point.objects.filter(pk=trashed.pk).exists()
    assert compiles(system) == 1


def test_the_list_moves_selected_trails_to_the_trash_under_one_name(staff, system):
    trail = Trail.objects.get(trail_system=system)
    actions = staff.get(url(Trail, "changelist")).content.decode()
    assert actions.count("Move selected to the trash") == 1
    assert "Delete selected" not in actions
    response = staff.post(
        url(Trail, "changelist"),
        {"action": "delete_selected", "_selected_action": [trail.pk], "post": "yes"},
        follow=True,
    )
    assert "Moved to the trash, where they can be restored: 1." in response.content.decode()
    assert Trail.trash.get(pk=trail.pk).trashed_by == "uid-staff"
    assert compiles(system) == 1


def messages_after(response) -> list[tuple[str, str]]:
    return [(m.level_tag, m.message) for m in response.context["messages"]]


def test_a_row_someone_else_trashed_meanwhile_is_counted_apart_and_the_rest_is_done(staff, system):
    kept = Trail.objects.get(trail_system=system)
    gone = TrailFactory(trail_system=system, name="Gone Meanwhile")
    trash_trail(trail=gone, actor=Actor("uid-other", Via.WEB_APP))
    response = staff.post(
        url(Trail, "changelist"),
        {"action": "set_status_closed", "_selected_action": [kept.pk, gone.pk]},
        follow=True,
    )
    assert messages_after(response) == [
        ("success", "1 trail set to Closed."),
        (
            "warning",
            "1 selected trail is no longer in this list (someone else moved, restored or "
            "deleted it meanwhile); it was left as it is.",
        ),
    ]
    assert Trail.objects.get(pk=kept.pk).status == "Closed"
    assert Trail.trash.get(pk=gone.pk).status != "Closed"


def test_a_refused_row_is_named_with_the_reason_and_the_others_are_done(staff_user, system):
    """The list read before a colleague trashed one of the rows: that row is refused by name."""
    first = Trail.objects.get(trail_system=system)
    second = TrailFactory(trail_system=system, name="Second")
    listed = Trail.objects.filter(pk__in=[first.pk, second.pk])
    list(listed)  # the rows as the page read them
    trash_trail(trail=second, actor=Actor("uid-other", Via.WEB_APP))
    request = RequestFactory().post(
        url(Trail, "changelist"), {"_selected_action": [first.pk, second.pk], "post": "yes"}
    )
    request.user = staff_user
    request.session = {}
    request._messages = FallbackStorage(request)

    delete_selected(admin.site._registry[Trail], request, listed)

    assert [(m.level_tag, m.message) for m in get_messages(request)] == [
        ("success", "Moved to the trash, where they can be restored: 1."),
        ("error", f"Not moved to the trash: “Second”. Trail {second.pk} is already in the trash."),
    ]
    assert Trail.trash.get(pk=first.pk).trashed_by == "uid-staff"
    assert Trail.trash.get(pk=second.pk).trashed_by == "uid-other"


def trail_form(system, geometry, activities: list[dict]) -> dict:
    data = {
        "trail_system": system.pk,
        "name": "New loop",
        "description": "",
        "status": "Open",
        "difficulty": "square",
        "type": "Standard",
        "line_style": "Solid",
        "order": "0",
        "categories": "Nordic\n Loops \n",
        "geometry": json.dumps(geometry),
        "activities-TOTAL_FORMS": str(len(activities)),
        "activities-INITIAL_FORMS": "0",
        "activities-MIN_NUM_FORMS": "0",
        "activities-MAX_NUM_FORMS": "1000",
    }
    for i, activity in enumerate(activities):
        data |= {f"activities-{i}-{key}": value for key, value in activity.items()}
    return data


def test_adding_a_trail_derives_distance_and_position_and_queues_a_compile(staff, system):
    geometry = line(-113.9, 45.7, n=3)
    activities = [
        {"value": "nordic-skate", "status": "Open", "difficulty": "", "position": "0"},
        {"value": "nordic-classic", "status": "Caution", "difficulty": "circle", "position": "1"},
    ]
    response = staff.post(url(Trail, "add"), trail_form(system, geometry, activities))

    assert response.status_code == 302
    trail = Trail.objects.get(name="New loop")
    assert 0.2 < trail.distance < 0.3
    assert trail.categories == ["Nordic", "Loops"]  # one per line, not JSON
    assert (trail.lat, trail.lng) == (45.7, -113.9)
    assert (trail.created_by, trail.updated_by) == ("uid-staff", "uid-staff")
    assert list(trail.activities.values_list("value", "status")) == [
        ("nordic-skate", "Open"),
        ("nordic-classic", "Caution"),
    ]
    assert compiles(system) == 1


def test_an_unknown_activity_is_refused_with_a_clear_error(staff, system):
    activities = [{"value": "curling", "status": "Open", "difficulty": "", "position": "0"}]
    response = staff.post(url(Trail, "add"), trail_form(system, line(), activities))
    assert response.status_code == 200
    assert "Unknown activity curling; choose one from the list." in response.content.decode()
    assert not Trail.objects.filter(name="New loop").exists()
    assert compiles(system) == 0


def test_the_same_activity_twice_on_a_trail_is_refused(staff, system):
    hiking = {"value": "hiking", "status": "Open", "difficulty": "", "position": "0"}
    response = staff.post(url(Trail, "add"), trail_form(system, line(), [hiking, hiking]))
    assert response.status_code == 200
    assert not Trail.objects.filter(name="New loop").exists()


def test_an_unusable_geometry_is_refused(staff, system):
    response = staff.post(
        url(Trail, "add"), trail_form(system, {"type": "Point", "coordinates": [0, 0]}, [])
    )
    assert response.status_code == 200
    assert "geometry type must be one of LineString, MultiLineString" in response.content.decode()
    assert compiles(system) == 0


def test_editing_a_trail_geometry_goes_through_apply_geometry(staff, system):
    trail = Trail.objects.get(trail_system=system)
    moved = line(-113.5, 45.5, n=5)
    data = trail_form(system, moved, []) | {"name": trail.name}
    data |= {"activities-INITIAL_FORMS": "1", "activities-TOTAL_FORMS": "1"}
    activity = trail.activities.get()
    data |= {
        "activities-0-id": activity.pk,
        "activities-0-trail": trail.pk,
        "activities-0-value": activity.value,
        "activities-0-status": "Closed",
        "activities-0-difficulty": "",
        "activities-0-position": "0",
    }
    response = staff.post(url(Trail, "change", trail.pk), data)
    assert response.status_code == 302
    trail.refresh_from_db()
    assert (trail.lat, trail.lng) == (45.5, -113.5)
    assert 0.5 < trail.distance < 0.6
    assert trail.activities.get().status == "Closed"
    assert compiles(system) == 1


def test_deleting_a_point_and_editing_an_update_queue_compiles(staff, system):
    point = Point.objects.get(trail_system=system)
    staff.post(url(Point, "delete", point.pk), {"post": "yes"})
    assert Point.trash.get(pk=point.pk).trashed_by == "uid-staff"
    assert compiles(system) == 1

    update = Update.objects.get(trail_system=system)
    response = staff.post(
        url(Update, "change", update.pk),
        notice_form(system, description="Trails reopen tomorrow.", severity="warning"),
    )
    assert response.status_code == 302
    update.refresh_from_db()
    assert (update.description, update.updated_by) == ("Trails reopen tomorrow.", "uid-staff")
    assert compiles(system) == 2


@pytest.mark.parametrize(
    ("model", "message"),
    [
        (TrashedTrail, "Deleted for good: 1."),
        (TrashedPoint, "Deleted for good: 1."),
        (Update, "Successfully deleted 1 update."),
    ],
)
def test_delete_selected_removes_the_rows_for_good_and_queues_a_compile(
    staff, system, model, message
):
    Delivery.objects.all().delete()  # the deliveries' log is not the manager's to delete
    selected = list(model.objects.filter(trail_system=system).values_list("pk", flat=True))
    response = staff.post(
        url(model, "changelist"),
        {"action": "delete_selected", "_selected_action": selected, "post": "yes"},
        follow=True,
    )
    assert messages_after(response) == [("success", message)]
    assert not model._base_manager.filter(pk__in=selected).exists()
    assert compiles(system) == 1


def test_an_operator_adds_changes_and_deletes_an_account_through_its_page(staff):
    response = staff.post(
        url(User, "add"),
        {"uid": "uid-new", "email": "New@Example.test", "is_staff": "on", "is_active": "on"},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    user = User.objects.get(uid="uid-new")
    assert (user.email, user.is_staff, user.has_usable_password()) == (
        "New@example.test",
        True,
        False,
    )

    response = staff.post(
        url(User, "change", user.pk),
        {"email": "new@example.test", "is_super_admin": "on", "is_active": "on"},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    user.refresh_from_db()
    assert (user.email, user.is_super_admin, user.is_staff) == ("new@example.test", True, False)

    staff.post(url(User, "delete", user.pk), {"post": "yes"})
    assert not User.objects.filter(uid="uid-new").exists()


@pytest.mark.parametrize("model", [Subscriber, TrailSystem])
def test_an_operator_deletes_a_subscriber_or_a_whole_system_through_its_page(staff, system, model):
    # The deliveries' logs (notifications, webhooks) are not the operator's to delete.
    Delivery.objects.all().delete()
    WebhookDelivery.objects.all().delete()
    row = system if model is TrailSystem else Subscriber.objects.get(trail_system=system)
    response = staff.post(url(model, "delete", row.pk), {"post": "yes"}, follow=True)
    assert response.status_code == 200
    assert not model.objects.filter(pk=row.pk).exists()


def test_a_surface_conditions_update_needs_conditions_and_trails(staff, system):
    response = staff.post(
        url(Update, "add"),
        {
            "trail_system": system.pk,
            "type": "surfaceConditions",
            "expiration_date_0": "2099-01-01",
            "expiration_date_1": "12:00:00",
        },
    )
    page = response.content.decode()
    assert "Choose at least one surface condition." in page
    assert "Choose trails, or tick all trails." in page
    assert compiles(system) == 0


def test_a_membership_with_a_malformed_role_is_refused(staff, system):
    membership = system.memberships.get()
    data = {
        "name": system.name,
        "owner": system.owner_id,
        "subscription": "free",
        "language": "en",
        "depth_measurement": "inches",
        "length_measurement": "miles",
        "temp_measurement": "fahrenheit",
        "sms_confirmations_per_day": "100",
        "reports_per_day": "200",
        "memberships-TOTAL_FORMS": "1",
        "memberships-INITIAL_FORMS": "1",
        "memberships-MIN_NUM_FORMS": "0",
        "memberships-MAX_NUM_FORMS": "1000",
        "memberships-0-id": membership.pk,
        "memberships-0-trail_system": system.pk,
        "memberships-0-user": membership.user_id,
        "memberships-0-role": "Crew-42",
    }
    response = staff.post(url(type(system), "change", system.pk), data)
    assert response.status_code == 200
    assert "Invalid role" in response.content.decode()

    data["memberships-0-role"] = "administrator"
    assert staff.post(url(type(system), "change", system.pk), data).status_code == 302
    assert system.memberships.get().role == "Administrator"


def test_adding_a_subscriber_validates_through_the_service(staff, system):
    taken = Subscriber.objects.get(trail_system=system).email
    form = {"trail_system": system.pk, "email": taken, "phone": ""}
    response = staff.post(url(Subscriber, "add"), form)
    assert "already subscribed" in response.content.decode()

    form = {"trail_system": system.pk, "email": "", "phone": "+1 (406) 555-0100"}
    assert staff.post(url(Subscriber, "add"), form).status_code == 302
    assert Subscriber.objects.filter(phone="+14065550100").exists()


def test_revoking_api_keys(staff, system):
    key = ApiKey.objects.get()
    response = staff.post(
        url(ApiKey, "changelist"), {"action": "revoke", "_selected_action": [key.pk]}, follow=True
    )
    assert "Revoked 1 key." in response.content.decode()
    key.refresh_from_db()
    assert key.revoked and key.revoked_on is not None


def test_read_only_pages_cannot_be_changed(staff, system):
    delivery = Delivery.objects.get()
    response = staff.post(url(Delivery, "change", delivery.pk), {"state": "sent"})
    assert response.status_code == 403
    assert staff.get(url(CompileRequest, "add")).status_code == 403


def test_moving_a_point_to_another_system_recompiles_both(staff, system):
    point = Point.objects.get(trail_system=system)
    other = TrailSystemFactory()
    form = point_form(point, other, status="Closed")
    assert staff.post(url(Point, "change", point.pk), form).status_code == 302
    assert Point.objects.get(pk=point.pk).trail_system == other
    assert (compiles(system), compiles(other)) == (1, 1)


def test_the_web_app_refuses_links_that_are_not_http(staff, system):
    """Defect 7 on the web app's write path: the update and point services refuse them."""
    update = Update.objects.get(trail_system=system)
    response = staff.post(
        url(Update, "change", update.pk),
        notice_form(system, link_url="javascript:alert(1)"),
        follow=True,
    )
    # The refusal is shown on the form's field, with what was typed kept.
    assert response.status_code == 200
    assert "Must be an http:// or https:// URL." in response.content.decode()
    assert "javascript:alert(1)" in response.content.decode()
    point = Point.objects.get(trail_system=system)
    form = point_form(point, system, web_cam_url="javascript:alert(1)")
    staff.post(url(Point, "change", point.pk), form)
    assert Point.objects.get(pk=point.pk).web_cam_url == ""
    assert Update.objects.get(pk=update.pk).link_url == ""
    assert compiles(system) == 0
