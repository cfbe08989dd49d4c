"""The status board without JavaScript (a tap is a form post), who may open it, and "last
confirmed" in the management API."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from core.actors import Via
from tests.factories import (
    MembershipFactory,
    TrailActivityFactory,
    TrailFactory,
    TrailSystemFactory,
)
from tests.webapp.test_system_pages import signed_in
from trails.models import StatusChange, Trail

pytestmark = pytest.mark.django_db


def board_url(system) -> str:
    return f"/admin/trail-systems/{system.pk}/board/"


@pytest.fixture
def trustee_board(client):
    """A trustee signed in on a system with a lift and a categorized trail with an activity."""
    membership = MembershipFactory(user__uid="patroller", role="Trustee")
    system = membership.trail_system
    activity = TrailActivityFactory(
        trail__trail_system=system,
        trail__name="Aspen Loop",
        trail__status="Open",
        trail__categories=["Nordic"],
        value="nordic-classic",
    )
    TrailFactory(trail_system=system, name="Summit Chair", type="Lift", status="Open")
    signed_in(client, membership.user)
    return system, activity.trail


def test_the_board_is_on_the_server_with_names_statuses_and_groups(client, trustee_board):
    system, trail = trustee_board
    page = client.get(board_url(system)).content.decode()
    assert "Aspen Loop" in page and "Summit Chair" in page
    assert (
        f'value="{trail.pk}||Open" class="tap tap-open" data-status="Open" aria-pressed="true"'
        in page
    )
    assert page.index("Nordic") < page.index("Aspen Loop") < page.index("Lifts")
    assert page.index("Lifts") < page.index("Summit Chair")
    home = client.get("/admin/").content.decode()
    assert board_url(system) in home
    overview = client.get(f"/admin/trails/trailsystem/{system.pk}/overview/").content.decode()
    assert board_url(system) in overview


def test_without_javascript_a_tap_is_a_form_post_recorded_as_the_web_app(client, trustee_board):
    system, trail = trustee_board

    response = client.post(board_url(system), {"tap": f"{trail.pk}||Closed"}, follow=True)

    assert response.redirect_chain == [(board_url(system), 302)]
    assert "Aspen Loop: Closed" in response.content.decode()
    trail.refresh_from_db()
    assert trail.status == "Closed"
    assert trail.activities.get().status == "Closed"  # Closed closes every activity
    assert trail.status_confirmed_by == "patroller"
    change = StatusChange.objects.get(trail=trail, activity="")
    assert (change.via, change.uid, change.new_value) == (Via.WEB_APP, "patroller", "Closed")


def test_open_after_closed_opens_the_closed_activities_on_the_board(client, trustee_board):
    """Open means open in the web app (issue 33); an activity set on its own keeps its status."""
    system, trail = trustee_board
    as_json = {"HTTP_ACCEPT": "application/json"}
    client.post(board_url(system), {"tap": f"{trail.pk}||Closed"}, **as_json)

    reopened = client.post(board_url(system), {"tap": f"{trail.pk}||Open"}, **as_json).json()
    assert reopened["trails"][0]["activities"] == {"nordic-classic": "Open"}
    client.post(board_url(system), {"tap": f"{trail.pk}|nordic-classic|Closed"}, **as_json)
    assert trail.activities.get().status == "Closed"  # one by one: the activity alone

    client.post(board_url(system), {"bulk": "Caution", "trails": [trail.pk]}, **as_json)
    assert trail.activities.get().status == "Caution"
    changes = StatusChange.objects.filter(trail=trail, activity="nordic-classic")
    assert list(changes.order_by("pk").values_list("new_value", flat=True)) == [
        "Closed",
        "Open",
        "Closed",
        "Caution",
    ]


def test_an_activity_tap_and_a_refused_status_in_json(client, trustee_board):
    system, trail = trustee_board
    as_json = {"HTTP_ACCEPT": "application/json"}

    answer = client.post(
        board_url(system), {"tap": f"{trail.pk}|nordic-classic|Caution"}, **as_json
    )
    refused = client.post(board_url(system), {"tap": f"{trail.pk}||Sideways"}, **as_json)

    assert answer.json()["trails"][0]["activities"] == {"nordic-classic": "Caution"}
    assert refused.status_code == 400
    assert refused.json() == {"error": {"code": "refused", "message": "Unknown status Sideways."}}
    assert Trail.objects.get(pk=trail.pk).status == "Open"


def test_only_people_with_a_role_on_the_system_may_open_or_post_to_its_board(client):
    system = TrailSystemFactory()
    trail = TrailFactory(trail_system=system, status="Open")
    assert client.get(board_url(system)).status_code == 302  # to the sign-in page
    signed_in(client, MembershipFactory(user__uid="elsewhere").user)
    assert client.get(board_url(system)).status_code == 404
    assert client.post(board_url(system), {"tap": f"{trail.pk}||Closed"}).status_code == 404
    assert Trail.objects.get(pk=trail.pk).status == "Open"


def test_a_post_without_the_csrf_token_changes_nothing(trustee_board):
    system, trail = trustee_board
    guarded = signed_in(Client(enforce_csrf_checks=True), system.memberships.get().user)
    assert guarded.post(board_url(system), {"tap": f"{trail.pk}||Closed"}).status_code == 403
    assert Trail.objects.get(pk=trail.pk).status == "Open"


def test_the_api_shows_who_last_confirmed_a_status_and_takes_the_system_setting(manager, system):
    trail = TrailFactory(trail_system=system, status="Open")
    before = manager.get(f"/api/v1/trails/{trail.pk}").json()
    assert (before["statusConfirmedOn"], before["statusConfirmedBy"]) == (None, "")

    manager.patch(f"/api/v1/trails/{trail.pk}", {"status": "Caution"}, format="json")
    after = manager.get(f"/api/v1/trails/{trail.pk}").json()
    assert after["statusConfirmedBy"] == system.owner.uid
    assert after["statusConfirmedOn"] is not None

    changed = manager.patch(
        f"/api/v1/trail-systems/{system.pk}", {"unconfirmedAfterHours": 12}, format="json"
    )
    assert changed.status_code == 200
    assert manager.get(f"/api/v1/trail-systems/{system.pk}").json()["unconfirmedAfterHours"] == 12
    refused = manager.patch(
        f"/api/v1/trail-systems/{system.pk}", {"unconfirmedAfterHours": 0}, format="json"
    )
    assert refused.status_code == 400


def test_the_public_route_lists_unconfirmed_trails_only_when_the_setting_is_on(client):
    system = TrailSystemFactory()
    stale = TrailFactory(
        trail_system=system, status_confirmed_on=timezone.now() - timedelta(hours=3)
    )
    TrailFactory(trail_system=system, status_confirmed_on=timezone.now())
    url = f"/feeds/{system.pk}/confirmations.json"
    assert client.get(url).json()["unconfirmed"] == []

    system.unconfirmed_after_hours = 2
    system.save()
    body = client.get(url).json()
    assert body["unconfirmedAfterHours"] == 2
    assert [trail["trailId"] for trail in body["unconfirmed"]] == [stale.pk]


def test_a_large_system_lists_its_groups_first_and_a_group_is_a_page(
    client, trustee_board, monkeypatch
):
    system, _trail = trustee_board
    TrailFactory(trail_system=system, name="Birch Bend", categories=["Nordic"])
    monkeypatch.setattr("webapp.board.TRAILS_ON_ONE_PAGE", 2)

    groups = client.get(board_url(system)).content.decode()
    nordic = client.get(board_url(system), {"group": "c:Nordic"}).content.decode()
    found = client.get(board_url(system), {"q": "summit"}).content.decode()

    assert 'href="?group=c%3ANordic">Nordic</a> <span class="count">(2)' in groups
    assert "Aspen Loop" not in groups
    assert "Aspen Loop" in nordic and "Birch Bend" in nordic and "Summit Chair" not in nordic
    assert "Summit Chair" in found and "Aspen Loop" not in found
    state = client.get(board_url(system), {"group": "c:Nordic", "format": "json"}).json()
    assert sorted(t["id"] for t in state["trails"]) == sorted(
        Trail.objects.filter(categories=["Nordic"]).values_list("pk", flat=True)
    )


def test_confirm_all_without_javascript_says_how_many_and_when_and_each_card_who(
    client, trustee_board
):
    system, _trail = trustee_board
    response = client.post(board_url(system), {"confirm": "all"}, follow=True)
    page = response.content.decode()
    assert "Confirmed 2 trails at " in page
    assert page.count("Last confirmed ") == 2 and "by patroller" in page
