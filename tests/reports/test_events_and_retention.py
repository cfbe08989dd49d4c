"""A report announces `report.created` to the system's webhooks (without the reporter's
address), and is deleted with its photo and address after the retention (issue 35)."""

import json
from datetime import timedelta

import pytest
from django.core.files.storage import storages
from django.utils import timezone

from core.actors import Actor, Via
from reports.models import Report
from reports.retention import delete_old_reports
from tests.reports.conftest import photo
from webhooks.models import WebhookMessage
from webhooks.services import create_endpoint

pytestmark = pytest.mark.django_db


def test_a_report_is_announced_to_webhooks_without_the_address(system, file_report):
    create_endpoint(
        system=system,
        url="https://hooks.example.org/reports",
        events=["report.created"],
        actor=Actor(system.owner.uid, Via.WEB_APP),
    )
    report_id = file_report(system, email="rider@example.test").json()["id"]
    message = WebhookMessage.objects.get(type="report.created")
    data = json.loads(message.payload)["data"]
    assert data["id"] == report_id and data["category"] == "fallenTree"
    assert data["trailId"] == Report.objects.get(pk=report_id).trail_id
    assert "rider@example.test" not in message.payload


def test_reports_are_deleted_with_photo_and_address_after_90_days(system, file_report):
    old_id = file_report(system, email="old@example.test", photo_body=photo()).json()["id"]
    recent_id = file_report(system, category="ice").json()["id"]
    old = Report.objects.get(pk=old_id)
    Report.objects.filter(pk=old_id).update(created_on=timezone.now() - timedelta(days=91))
    assert storages["report_photos"].exists(old.photo)
    assert delete_old_reports() == 1
    assert list(Report.objects.values_list("pk", flat=True)) == [recent_id]
    assert not storages["report_photos"].exists(old.photo)
