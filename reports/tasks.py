"""Background work of reports: alerting the Administrators (and the sweep of alerts not
queued), answering the reporters, and forgetting old reports."""

from celery import shared_task
from django.utils import timezone

from core.queueing import queue
from reports.alerts import alert_administrators, unqueued_alerts
from reports.answers import answer_group
from reports.retention import delete_old_reports


@shared_task(acks_late=True)
def answer_reporters(group_id: str) -> int:
    return answer_group(group_id)


@shared_task(acks_late=True)
def alert_about_report(report_id: str) -> int:
    return alert_administrators(report_id)


@shared_task(acks_late=True)
def queue_unqueued_alerts() -> int:
    """Every 15 seconds (beat): queue the alerts a broker outage kept from
    being queued when their report was filed; beat sends this task as soon as the broker
    answers again, so they go out within seconds of its return."""
    report_ids = unqueued_alerts(timezone.now())
    for report_id in report_ids:
        queue(alert_about_report, report_id)
    return len(report_ids)


@shared_task(acks_late=True)
def purge_old_reports() -> int:
    """Beat's daily pass: reports (with their photos and addresses) past REPORT_RETENTION."""
    return delete_old_reports()
