"""The web app's lists for a superAdmin, who sees every system's rows (at scale, 10,000
systems and half a million trails): a page costs the same queries whatever the number of rows,
and the trail-system filter is searched, never a list of every system."""

import pytest
from django.contrib import admin
from django.contrib.auth.models import Group
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

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
)
from trails.trash import trash_point, trash_trail
from updates.models import Delivery, Subscriber
from webapp.pagination import COUNT_CAP, CappedCountPaginator

pytestmark = pytest.mark.django_db

TRAILS = "/admin/trails/trail/"


@pytest.fixture
def super_admin(client):
    client.force_login(UserFactory(uid="super-admin", is_super_admin=True))
    return client


def add_system(n: int):
    """A system with rows of every model a superAdmin lists."""
    system = TrailSystemFactory(name=f"System {n:03d}")
    MembershipFactory(trail_system=system)
    trail = TrailActivityFactory(trail__trail_system=system, trail__categories=[f"Cat {n}"]).trail
    PointFactory(trail_system=system)
    actor = Actor("uid-x", Via.WEB_APP)
    trash_trail(trail=TrailFactory(trail_system=system), actor=actor)
    trash_point(point=PointFactory(trail_system=system), actor=actor)
    update = UpdateFactory(trail_system=system)
    ScheduleFactory(trail_system=system, trails=[trail])
    update.trails.add(trail)
    subscriber = SubscriberFactory(trail_system=system)
    Delivery.objects.create(update=update, subscriber=subscriber, channel="email")
    create_api_key(system.owner)
    create_api_key(system.owner, scopes=("read",), trail_system_ids=[system.pk])
    Group.objects.create(name=f"Group {n}")
    Client().post("/admin/login/", {"username": f"uid-{n}", "password": "wrong"})
    return system


def changelists() -> list[str]:
    return [
        reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        for model in admin.site._registry
    ]


def queries(client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured)


def test_every_list_costs_the_same_queries_for_one_system_and_many(super_admin):
    add_system(0)
    one = {url: queries(super_admin, url) for url in changelists()}

    for n in range(1, 8):
        add_system(n)
    many = {url: queries(super_admin, url) for url in changelists()}

    assert CompileRequest.objects.exists()
    assert many == one


def test_a_super_admin_searches_for_the_system_to_filter_by(super_admin):
    systems = [add_system(n) for n in range(3)]

    page = super_admin.get(TRAILS).content.decode()

    assert 'class="searched-filter"' in page
    assert 'data-ajax--url="/admin/autocomplete/"' in page
    assert "webapp/searched_filter.js" in page
    assert f"trail_system__id__exact={systems[1].pk}" not in page  # no link per system


def test_the_searched_filter_shows_the_chosen_system_and_keeps_the_search(super_admin):
    chosen, other = add_system(0), add_system(1)
    TrailFactory(trail_system=chosen, name="Ridge Loop")
    TrailFactory(trail_system=other, name="Ridge Run")

    page = super_admin.get(
        TRAILS, {"trail_system__id__exact": chosen.pk, "q": "ridge"}
    ).content.decode()

    assert "Ridge Loop" in page and "Ridge Run" not in page
    assert f'<option value="{chosen.pk}" selected>{chosen.name}</option>' in page
    assert '<input type="hidden" name="q" value="ridge">' in page


def test_a_manager_still_picks_among_their_own_systems(client):
    mine, also_mine, theirs = add_system(0), add_system(1), add_system(2)
    manager = MembershipFactory(trail_system=mine, role="Administrator").user
    MembershipFactory(trail_system=also_mine, user=manager, role="Administrator")
    client.force_login(manager)

    page = client.get(TRAILS).content.decode()

    assert f"trail_system__id__exact={mine.pk}" in page
    assert f"trail_system__id__exact={also_mine.pk}" in page
    assert theirs.name not in page
    assert 'class="searched-filter"' not in page


def test_a_super_admin_is_offered_the_categories_of_the_system_the_list_shows(super_admin):
    chosen, _ = add_system(0), add_system(1)

    everything = super_admin.get(TRAILS).content.decode()
    one_system = super_admin.get(TRAILS, {"trail_system__id__exact": chosen.pk}).content.decode()

    assert "category=Cat" not in everything
    assert "category=Cat+0" in one_system and "category=Cat+1" not in one_system


@pytest.mark.django_db(transaction=True)
def test_a_super_admin_filters_the_trails_by_a_system_found_by_name(live_server, page, screenshot):
    from tests.webapp.test_browser import sign_in

    chosen, other = add_system(0), add_system(1)
    TrailFactory(trail_system=chosen, name="Ridge Loop")
    TrailFactory(trail_system=other, name="Valley Run")
    sign_in(page, live_server, UserFactory(uid="super-admin", is_super_admin=True))

    page.goto(f"{live_server.url}{TRAILS}")
    page.click("form.searched-filter .select2-selection")
    page.fill(".select2-search__field", "System 000")
    page.click(".select2-results__option:has-text('System 000')")
    page.wait_for_url(f"**trail_system__id__exact={chosen.pk}**")
    screenshot("webapp-trails-filtered-by-a-searched-system")

    listed = page.inner_text("#result_list")
    assert "Ridge Loop" in listed and "Valley Run" not in listed
    assert chosen.name in page.inner_text("form.searched-filter")


def test_a_subscriber_search_lists_the_matches_by_address(super_admin):
    system = add_system(0)
    SubscriberFactory(trail_system=system, email="zoe.ridge@example.test")
    SubscriberFactory(trail_system=system, email="al.ridge@example.test")

    page = super_admin.get("/admin/updates/subscriber/", {"q": "ridge"}).content.decode()

    assert page.index("al.ridge@example.test") < page.index("zoe.ridge@example.test")


def test_a_list_longer_than_the_cap_is_counted_by_estimate_and_pages_past_it_are_empty(
    super_admin,
):
    system = add_system(0)
    Subscriber.objects.bulk_create(
        Subscriber(trail_system=system, email=f"s{n}@example.test") for n in range(COUNT_CAP + 1)
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE updates_subscriber")

    paginator = CappedCountPaginator(Subscriber.objects.order_by("pk"), 100)
    far = super_admin.get("/admin/updates/subscriber/", {"p": paginator.num_pages + 5})

    assert paginator.count > COUNT_CAP
    assert len(paginator.page(1).object_list) == 100
    assert far.status_code == 200
    assert "s1@example.test" not in far.content.decode()
