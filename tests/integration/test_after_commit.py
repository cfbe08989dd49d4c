"""Work queued after a commit never fails the caller (core.queueing, issue 42 item 1): with
the broker down, a rider's report is kept and answered 201, once. The broker stopped here
is a private redis-server; the shared one of the other suites is never touched."""

import pytest
from django.test import Client

from reports.models import Report, ReportAlert
from tests.factories import TrailFactory, TrailSystemFactory, UserFactory, line

pytestmark = pytest.mark.integration


def test_a_report_filed_while_the_broker_is_down_answers_201_and_is_stored_once(
    private_broker, transactional_db
):
    administrator = UserFactory(email="crew@example.test")
    system = TrailSystemFactory(owner=administrator)
    TrailFactory(trail_system=system, geometry=line(-113.95, 45.69))
    ReportAlert.objects.create(trail_system=system, user=administrator)

    private_broker.stop()
    answer = Client().post(
        f"/report/{system.pk}",
        {"category": "fallenTree", "lat": "45.6905", "lng": "-113.9495"},
        HTTP_ACCEPT="application/json",
        REMOTE_ADDR="198.51.100.20",
    )

    assert answer.status_code == 201, answer.content
    assert list(Report.objects.values_list("pk", flat=True)) == [answer.json()["id"]]
