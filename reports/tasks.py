"""Background work of reports: answering the reporters, and forgetting old reports."""

from celery import shared_task

from reports.alerts import alert_administrators
from reports.answers import answer_group
from reports.retention import delete_old_reports


@shared_task(acks_late=True)
def answer_reporters(group_id: str) -> int:
    return answer_group(group_id)


@shared_task(acks_late=True)
def alert_about_report(report_id: str) -> int:
    return alert_administrators(report_id)


@shared_task(acks_late=True)
def purge_old_reports() -> int:
    """Beat's daily pass: reports (with their photos and addresses) past REPORT_RETENTION."""
    return delete_old_reports()
