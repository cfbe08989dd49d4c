"""Updates with notify ask for confirmation naming the audience; subscribers' list, unsubscribe
and CSV export by role."""

import re
from datetime import UTC, datetime

import pytest

from tests.factories import (
    MembershipFactory,
    SubscriberFactory,
    TrailFactory,
    TrailSystemFactory,
    UpdateFactory,
    UserFactory,
)
from updates.models import Subscriber, Update

pytestmark = pytest.mark.django_db

UPDATES = "/admin/updates/update/"
SUBSCRIBERS = "/admin/updates/subscriber/"


def signed_in(client, user):
    client.force_login(user, backend="webapp.backends.RoleBackend")
    return client


def notice(system, **extra) -> dict:
    return {
        "trail_system": system.pk,
        "type": "notice",
        "expiration_date_0": "2099-01-01",
        "expiration_date_1": "12:00:00",
        "description": "Lift 2 closed for wind.",
        "severity": "warning",
        **extra,
    }


def test_notify_names_how_many_subscribers_and_sends_only_once_confirmed(
    client, mailoutbox, django_capture_on_commit_callbacks
):
    membership = MembershipFactory(user__uid="trustee")
    system = membership.trail_system
    SubscriberFactory.create_batch(2, trail_system=system)
    SubscriberFactory(trail_system=system, unsubscribed_on="2020-01-01T00:00:00Z")
    signed_in(client, membership.user)

    first = client.post(f"{UPDATES}add/", notice(system, notify="on"))
    assert first.status_code == 200
    question = first.content.decode()
    assert "This update will be e-mailed or texted to 2 subscribers of" in question
    assert "errornote" not in question and "errorlist" not in question  # a question
    assert not Update.objects.exists()

    with django_capture_on_commit_callbacks(execute=True):
        second = client.post(f"{UPDATES}add/", notice(system, notify="on", confirm_notify="on"))
    assert second.status_code == 302
    update = Update.objects.get()
    assert (update.notify, update.source, update.created_by) == (True, "web", "trustee")
    assert len(mailoutbox) == 2


def test_without_notify_an_update_is_saved_at_once_and_sends_nothing(client, mailoutbox):
    system = TrailSystemFactory()
    SubscriberFactory(trail_system=system)
    signed_in(client, system.owner)
    assert client.post(f"{UPDATES}add/", notice(system)).status_code == 302
    assert Update.objects.get().notify is False
    assert mailoutbox == []


def test_changing_an_update_offers_no_notify(client):
    update = UpdateFactory()
    signed_in(client, update.trail_system.owner)
    page = client.get(f"{UPDATES}{update.pk}/change/").content.decode()
    assert 'name="notify"' not in page


NOTICE = {"type": "notice", "description": "Lift 2 closed."}
SNOW_REPORT = {"type": "snowReport", "description": "", "severity": "", "base_depth": 80}


@pytest.mark.parametrize(
    ("made", "offered", "not_offered", "changes", "saved"),
    [
        (NOTICE, ["description", "all_trails"], ["base_depth", "conditions"],
         {"description": "Lift 2 open again.", "severity": "info"},
         {"description": "Lift 2 open again.", "severity": "info"}),
        # A snow report is the whole system's: no trails to choose.
        (SNOW_REPORT, ["base_depth"], ["trails", "all_trails", "description"],
         {"base_depth": "95"}, {"base_depth": 95}),
    ],
    ids=["notice", "snowReport"],
)  # fmt: skip
def test_an_updates_page_shows_its_types_fields_alone_and_saves_a_change(
    client, made, offered, not_offered, changes, saved
):
    """Its type is fixed, so the empty fields of the other types are not offered."""
    update = UpdateFactory(**made)
    signed_in(client, update.trail_system.owner)
    page = client.get(f"{UPDATES}{update.pk}/change/").content.decode()
    assert all(f'name="{name}"' in page for name in offered)
    assert not any(f'name="{name}"' in page for name in not_offered)
    expiry = {"expiration_date_0": "2099-01-01", "expiration_date_1": "12:00:00"}
    response = client.post(f"{UPDATES}{update.pk}/change/", {**expiry, **changes})
    assert response.status_code == 302
    update.refresh_from_db()
    assert {name: getattr(update, name) for name in saved} == saved


def test_a_trustee_sees_no_subscriber_list_detail_or_export(client):
    """Subscribers' e-mail addresses and phone numbers are the Administrators' business."""
    membership = MembershipFactory(user__uid="trustee")
    subscriber = SubscriberFactory(trail_system=membership.trail_system)
    signed_in(client, membership.user)

    for page in (SUBSCRIBERS, f"{SUBSCRIBERS}{subscriber.pk}/change/"):
        response = client.get(page)
        assert response.status_code == 403
        assert subscriber.email not in response.content.decode()
    for action in ("export_csv", "unsubscribe"):
        response = client.post(SUBSCRIBERS, {"action": action, "_selected_action": [subscriber.pk]})
        assert response.status_code == 403
        assert subscriber.email not in response.content.decode()
    assert Subscriber.objects.get(pk=subscriber.pk).unsubscribed_on is None
    assert SUBSCRIBERS not in client.get("/admin/").content.decode()


def test_an_administrator_sees_the_subscribers_list_and_each_subscriber(client):
    system = TrailSystemFactory()
    subscriber = SubscriberFactory(trail_system=system)
    signed_in(client, system.owner)

    assert subscriber.email in client.get(SUBSCRIBERS).content.decode()
    detail = client.get(f"{SUBSCRIBERS}{subscriber.pk}/change/")
    assert detail.status_code == 200 and subscriber.email in detail.content.decode()


def test_an_administrator_exports_and_unsubscribes_only_their_systems_subscribers(client):
    system = TrailSystemFactory()
    ours = SubscriberFactory(trail_system=system, email="ours@example.test")
    theirs = SubscriberFactory(email="theirs@example.test")
    signed_in(client, system.owner)

    export = client.post(
        SUBSCRIBERS, {"action": "export_csv", "_selected_action": [ours.pk, theirs.pk]}
    )
    assert export["Content-Type"].startswith("text/csv")
    body = export.content.decode()
    assert "ours@example.test" in body and "theirs@example.test" not in body

    client.post(SUBSCRIBERS, {"action": "unsubscribe", "_selected_action": [ours.pk, theirs.pk]})
    assert Subscriber.objects.get(pk=ours.pk).unsubscribed_on is not None
    assert Subscriber.objects.get(pk=theirs.pk).unsubscribed_on is None


def test_an_update_page_is_titled_with_its_system_name(client):
    """Its expiry in the system's time, as the web app writes times, the zone named."""
    system = TrailSystemFactory(name="Lost Trail Powder Mountain", time_zone="America/Denver")
    expiry = datetime(2027, 11, 29, 7, 27, tzinfo=UTC)
    update = UpdateFactory(trail_system=system, type="notice", expiration_date=expiry)
    signed_in(client, system.owner)

    page = client.get(f"{UPDATES}{update.pk}/change/").content.decode()

    assert (
        "Notice on Lost Trail Powder Mountain until Nov. 29, 2027, 12:27 a.m. America/Denver"
        in page
    )
    assert f"Notice on {system.pk}" not in page


def test_a_super_admin_finds_the_trails_of_an_update_by_search_under_the_services_name(client):
    """Every system's trails are too many to list: a superAdmin's `trail_ids` field searches
    them (the admin's autocomplete, over the update's `trails`), and saves like the picker."""
    system = TrailSystemFactory()
    trail = TrailFactory(trail_system=system, name="Aspen Loop")
    signed_in(client, UserFactory(uid="operator", is_super_admin=True))
    page = client.get(f"{UPDATES}add/").content.decode()
    field = re.search(r'<select name="trail_ids"[^>]*>', page).group(0)
    assert "admin-autocomplete" in field and 'data-field-name="trails"' in field
    found = client.get(
        "/admin/autocomplete/",
        {"app_label": "updates", "model_name": "update", "field_name": "trails", "term": "aspen"},
    ).json()
    assert [result["id"] for result in found["results"]] == [trail.pk]
    body = notice(system, type="surfaceConditions", conditions=["icy"], trail_ids=[trail.pk])
    assert client.post(f"{UPDATES}add/", body).status_code == 302
    assert list(Update.objects.get().trails.all()) == [trail]


def test_an_updates_page_shows_its_trails_ticked_and_a_change_of_them_is_saved(client):
    system = TrailSystemFactory()
    kept, added = TrailFactory(trail_system=system), TrailFactory(trail_system=system)
    update = UpdateFactory(trail_system=system, type="surfaceConditions", conditions=["icy"])
    update.trails.set([kept])
    signed_in(client, system.owner)
    page = client.get(f"{UPDATES}{update.pk}/change/").content.decode()
    ticked = re.findall(r'<input type="checkbox" name="trail_ids" value="(\w+)"[^>]*checked', page)
    assert ticked == [kept.pk]
    body = {
        "expiration_date_0": "2099-01-01",
        "expiration_date_1": "12:00:00",
        "trail_ids": [kept.pk, added.pk],
        "conditions": ["icy"],
    }
    assert client.post(f"{UPDATES}{update.pk}/change/", body).status_code == 302
    assert set(update.trails.values_list("pk", flat=True)) == {kept.pk, added.pk}
