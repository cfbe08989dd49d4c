"""Every list endpoint runs the same number of SQL queries for 3 rows as for 300, and no
response that leaves out geometry reads the geometry column."""

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from tests.factories import UserFactory
from trails.models import Membership, Point, Trail, TrailActivity, TrailSystem
from updates.models import Update

pytestmark = pytest.mark.django_db

# Authentication (user), the system, the caller's role, the rows, and what they prefetch.
MAX_QUERIES = {
    "/api/v1/trail-systems": 3,
    "trails": 4,
    "trails?include=geoJson": 4,
    "points": 3,
    "updates": 7,
    "updates?includeExpired=true": 7,
}


def fill(system, count: int) -> None:
    trails = Trail.objects.bulk_create(
        Trail(
            trail_system=system,
            name=f"Trail {n}",
            geometry={"type": "LineString", "coordinates": [[0, 0], [0, 1]]},
            order=n,
        )
        for n in range(count)
    )
    TrailActivity.objects.bulk_create(
        TrailActivity(trail=trail, value=value)
        for trail in trails
        for value in ("hiking", "skiing")
    )
    Point.objects.bulk_create(
        Point(trail_system=system, name=f"P{n}", marker_class="bar", lat=0, lng=0)
        for n in range(count)
    )
    soon = timezone.now() + timedelta(hours=1)
    updates = Update.objects.bulk_create(
        Update(
            trail_system=system,
            type="surfaceConditions",
            conditions=["icy"],
            expiration_date=soon,
            all_trails=n % 2 == 0,
        )
        for n in range(min(count, 100))
    )
    for update in updates:
        if not update.all_trails:
            update.trails.set(trails[:3])
    others = TrailSystem.objects.bulk_create(TrailSystem(name=f"S{n}") for n in range(count))
    Membership.objects.bulk_create(Membership(trail_system=s, user=system.owner) for s in others)


def path(system, endpoint: str) -> str:
    if endpoint.startswith("/"):
        return endpoint
    return f"/api/v1/trail-systems/{system.pk}/{endpoint}"


@pytest.mark.parametrize("endpoint", list(MAX_QUERIES))
@pytest.mark.parametrize("count", [3, 300])
def test_list_queries_do_not_grow_with_rows(
    system, manager, django_assert_max_num_queries, endpoint, count
):
    fill(system, count)
    manager.get(path(system, endpoint))  # the caller's account exists from here on
    with django_assert_max_num_queries(MAX_QUERIES[endpoint]) as captured:
        response = manager.get(path(system, endpoint))
    assert response.status_code == 200
    assert len(next(iter(v for k, v in response.json().items() if isinstance(v, list)))) >= 3
    if "geoJson" not in endpoint:
        assert not any('"geometry"' in query["sql"] for query in captured.captured_queries)


@pytest.mark.parametrize(("method", "body"), [("patch", {"name": "Renamed"}), ("delete", None)])
def test_trail_writes_neither_read_nor_show_geometry(
    system, manager, django_assert_max_num_queries, method, body
):
    fill(system, 3)
    trail = Trail.objects.filter(trail_system=system).first()
    with django_assert_max_num_queries(20) as captured:
        response = getattr(manager, method)(f"/api/v1/trails/{trail.pk}", body, format="json")
    assert response.status_code == 200
    assert "geoJson" not in response.json()
    assert not any('"geometry"' in query["sql"] for query in captured.captured_queries)


@pytest.mark.parametrize("count", [3, 600])
def test_every_system_for_a_super_admin_costs_the_same_queries_and_stops_at_500(
    client_for, django_assert_max_num_queries, count
):
    boss = UserFactory(uid="boss", is_super_admin=True)
    TrailSystem.objects.bulk_create(TrailSystem(name=f"S{n:03d}") for n in range(count))
    client = client_for(boss)
    client.get("/api/v1/trail-systems?all=true")  # the caller's account exists from here on
    with django_assert_max_num_queries(MAX_QUERIES["/api/v1/trail-systems"]):
        response = client.get("/api/v1/trail-systems?all=true")
    assert len(response.json()["trailSystems"]) == min(count, 500)


STATUS_PATCH_STATEMENTS = {"Caution": 11, "Closed": 13}


@pytest.mark.parametrize("status", list(STATUS_PATCH_STATEMENTS))
def test_a_status_patch_answers_what_a_get_then_shows_in_few_statements(
    system, key_client_for, status
):
    """The answer is built from the row the service wrote (not read again), and a closing
    PATCH checks for webhook endpoints and followers once (issue 41 point 3)."""
    fill(system, 3)
    trail = Trail.objects.filter(trail_system=system).first()
    client = key_client_for(system.owner)
    client.get(f"/api/v1/trails/{trail.pk}")  # the key's first use is stamped once
    statements = []

    def log(execute, sql, params, many, context):
        statements.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(log):
        patched = client.patch(f"/api/v1/trails/{trail.pk}", {"status": status}, format="json")
    assert patched.status_code == 200
    shown = client.get(f"/api/v1/trails/{trail.pk}").json()
    shown.pop("geoJson")
    assert patched.json() == shown
    assert shown["status"] == status
    # In a test's transaction: a savepoint and its release instead of BEGIN and COMMIT.
    assert len(statements) <= STATUS_PATCH_STATEMENTS[status]
