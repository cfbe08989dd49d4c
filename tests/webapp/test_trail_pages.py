"""The trails list and trail page as a trustee uses them: bulk status, filters, activities."""

import pytest

from publishing.models import CompileRequest
from tests.factories import MembershipFactory, TrailActivityFactory, TrailFactory, line
from tests.webapp.test_admin import trail_form
from trails.models import Trail

pytestmark = pytest.mark.django_db

TRAILS = "/admin/trails/trail/"


@pytest.fixture
def trustee_client(client):
    membership = MembershipFactory(user__uid="trustee")
    client.force_login(membership.user, backend="webapp.backends.RoleBackend")
    client.system = membership.trail_system
    return client


def test_bulk_closing_three_trails_is_one_write_and_one_recompile(trustee_client):
    system = trustee_client.system
    trails = [TrailActivityFactory(trail__trail_system=system).trail for _ in range(3)]
    untouched = TrailFactory(trail_system=system, status="Open")
    theirs = TrailFactory(status="Open")
    CompileRequest.objects.all().delete()

    response = trustee_client.post(
        TRAILS,
        {"action": "set_status_closed", "_selected_action": [t.pk for t in trails] + [theirs.pk]},
        follow=True,
    )

    assert "3 trails set to Closed." in response.content.decode()
    for trail in trails:
        trail.refresh_from_db()
        assert trail.status == "Closed"
        assert [a.status for a in trail.activities.all()] == ["Closed"]
    assert Trail.objects.get(pk=untouched.pk).status == "Open"
    assert Trail.objects.get(pk=theirs.pk).status == "Open"
    assert list(CompileRequest.objects.values_list("trail_system_id", flat=True)) == [system.pk]


def test_the_list_shows_activities_and_filters_by_activity_and_category(trustee_client):
    system = trustee_client.system
    skate = TrailActivityFactory(
        trail__trail_system=system, trail__name="Skate loop", value="nordic-skate"
    ).trail
    skate.categories = ["Nordic", "Easy"]
    skate.save()
    TrailActivityFactory(
        trail__trail_system=system, trail__name="Bike run", value="mountain-biking"
    )

    page = trustee_client.get(TRAILS).content.decode()
    assert "Skate loop" in page and "Bike run" in page

    by_activity = trustee_client.get(TRAILS, {"activity": "nordic-skate"}).content.decode()
    assert "Skate loop" in by_activity and "Bike run" not in by_activity

    by_category = trustee_client.get(TRAILS, {"category": "Easy"}).content.decode()
    assert "Skate loop" in by_category and "Bike run" not in by_category

    by_name = trustee_client.get(TRAILS, {"q": "bike"}).content.decode()
    assert "Bike run" in by_name and "Skate loop" not in by_name


def test_the_trail_page_has_no_blank_activity_rows_and_a_map_preview(trustee_client):
    trail = TrailFactory(trail_system=trustee_client.system)
    for url in (f"{TRAILS}add/", f"{TRAILS}{trail.pk}/change/"):
        page = trustee_client.get(url).content.decode()
        assert 'name="activities-TOTAL_FORMS" value="0"' in page
        assert 'class="trail-map"' in page
        assert "/static/vendor/leaflet/leaflet.js" in page


def test_the_trail_page_lists_categories_one_per_line_not_as_json(trustee_client):
    trail = TrailFactory(trail_system=trustee_client.system, categories=["Nordic", "Easy"])
    page = trustee_client.get(f"{TRAILS}{trail.pk}/change/").content.decode()
    assert "Nordic\nEasy</textarea>" in page
    assert "[&quot;Nordic&quot;" not in page


def reopened_on_the_trail_page(client, trail, activity_statuses: list[str]) -> list[str]:
    """The trail page saved with status Open and its two activities set as given."""
    data = trail_form(trail.trail_system, line(), []) | {"name": trail.name}
    data |= {"activities-INITIAL_FORMS": "2", "activities-TOTAL_FORMS": "2"}
    for index, (activity, status) in enumerate(
        zip(trail.activities.order_by("position"), activity_statuses, strict=True)
    ):
        data |= {
            f"activities-{index}-id": activity.pk,
            f"activities-{index}-trail": trail.pk,
            f"activities-{index}-value": activity.value,
            f"activities-{index}-status": status,
            f"activities-{index}-difficulty": "",
            f"activities-{index}-position": str(index),
        }
    response = client.post(f"{TRAILS}{trail.pk}/change/", data)
    assert response.status_code == 302
    assert Trail.objects.get(pk=trail.pk).status == "Open"
    return list(trail.activities.order_by("position").values_list("status", flat=True))


def test_open_on_the_trail_page_opens_closed_activities_unless_set_one_by_one(trustee_client):
    trail = TrailFactory(trail_system=trustee_client.system, status="Closed")
    for position, value in enumerate(["nordic-classic", "nordic-skate"]):
        TrailActivityFactory(trail=trail, value=value, status="Closed", position=position)

    assert reopened_on_the_trail_page(trustee_client, trail, ["Closed", "Closed"]) == [
        "Open",
        "Open",
    ]

    Trail.objects.filter(pk=trail.pk).update(status="Closed")
    trail.activities.update(status="Closed")
    assert reopened_on_the_trail_page(trustee_client, trail, ["Caution", "Closed"]) == [
        "Caution",
        "Closed",
    ]


def test_bulk_open_in_the_list_opens_the_closed_activities(trustee_client):
    trail = TrailActivityFactory(
        trail__trail_system=trustee_client.system, trail__status="Closed", status="Closed"
    ).trail
    trustee_client.post(TRAILS, {"action": "set_status_open", "_selected_action": [trail.pk]})
    assert [a.status for a in trail.activities.all()] == ["Open"]


def test_the_list_tells_trails_of_one_name_apart(trustee_client):
    system = trustee_client.system
    TrailFactory(trail_system=system, name="Whoopee", categories=["Nordic"], distance=0.31)
    TrailFactory(trail_system=system, name="Whoopee", categories=["Alpine"], distance=0.34)
    TrailFactory(trail_system=system, name="Broadway", categories=["Nordic"])
    page = trustee_client.get(TRAILS).content.decode()
    assert "Whoopee (Nordic · Not rated · 0.31 km)" in page  # 0.3 km would leave them alike
    assert "Whoopee (Alpine · Not rated · 0.34 km)" in page
    assert ">Broadway</a>" in page
