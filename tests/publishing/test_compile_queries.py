"""A one-trail change is published with a fixed, small number of SQL statements whatever the
system's size: a compile's round trips are the floor of a small system's freshness (issue 41).
The points and updates are not read again when they did not change."""

import pytest
from django.core.files.storage import default_storage
from django.db import connection
from django.test.utils import CaptureQueriesContext

from publishing.models import CompileRequest
from publishing.publisher import compile_pending
from tests.factories import (
    PointFactory,
    TrailActivityFactory,
    TrailFactory,
    TrailSystemFactory,
    UpdateFactory,
)
from trails.models import Trail, TrailSystem

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="the change log is PostgreSQL's"),
]

# Lock, pending requests, snapshot/changes/language/digests, the trail's activities and row,
# the closures file's lock (closure writes rewrite it too), closures, the stored closures file
# (unchanged: not written), system columns, derived location, requests served, the event's
# endpoints, BEGIN and COMMIT; after the commit, the files replaced (one statement).
ONE_TRAIL_CHANGE_STATEMENTS = 15
# In a statement that reads the points' or updates' rows (their digest reads versions only).
POINT_ROWS = '"trails_point"."name"'
UPDATE_ROWS = '"updates_update"."description"'


@pytest.mark.parametrize("trails", [5, 60])
def test_a_one_trail_change_costs_the_same_few_statements_whatever_the_size(
    django_assert_max_num_queries, trails
):
    system = TrailSystemFactory(lat=None, lng=None)
    for _ in range(trails):
        TrailActivityFactory(trail=TrailFactory(trail_system=system), value="skiing")
    PointFactory(trail_system=system)
    UpdateFactory(trail_system=system).trails.add(Trail.objects.filter(trail_system=system)[0])
    CompileRequest.objects.create(trail_system=system, reason="first")
    compile_pending(system.pk)  # the system's kept compile in this process
    trail = Trail.objects.filter(trail_system=system).last()
    Trail.objects.filter(pk=trail.pk).update(status="Closed")
    CompileRequest.objects.create(trail_system=system, reason="test")

    with django_assert_max_num_queries(ONE_TRAIL_CHANGE_STATEMENTS) as captured:
        compile_pending(system.pk)

    statements = [q["sql"] for q in captured.captured_queries]
    assert not any(POINT_ROWS in sql or UPDATE_ROWS in sql for sql in statements)
    system = TrailSystem.objects.get(pk=system.pk)
    assert system.closed_trails == 1 and system.location_derived


def test_a_changed_point_is_read_again_and_published():
    system = TrailSystemFactory()
    TrailFactory(trail_system=system)
    point = PointFactory(trail_system=system, name="Lodge")
    CompileRequest.objects.create(trail_system=system, reason="first")
    compile_pending(system.pk)
    point.name = "Lodge and café"
    point.save()
    CompileRequest.objects.create(trail_system=system, reason="test")

    with CaptureQueriesContext(connection) as captured:
        compile_pending(system.pk)

    assert any(POINT_ROWS in q["sql"] for q in captured.captured_queries)
    system.refresh_from_db()
    with default_storage.open(system.geo_json_path) as published:
        assert "Lodge and caf\u00e9" in published.read().decode()
