"""E-mails to the Administrators who asked for one per new report: the report's words, its
place and nearest trail, and a link to the system's Reports page (never the reporter's
address or photo: the page shows those to whoever may see them), in the system's language."""

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.core import mail
from django.utils import translation

from core.messages import render_message, subject_line
from reports.models import Report, ReportAlert
from trails.enums import Role
from trails.selectors import role_for

logger = logging.getLogger(__name__)


# A pending alert younger than this is taken as one whose task is queued.
TRUST_QUEUED_FOR = timedelta(seconds=10)


def unqueued_alerts(now: datetime) -> list[str]:
    """The reports whose alert is pending longer than a queued task takes (a broker outage
    kept it from being queued)."""
    return list(
        Report.objects.filter(alert_pending=True, created_on__lte=now - TRUST_QUEUED_FOR)
        .order_by("created_on")
        .values_list("pk", flat=True)
    )


def alert_administrators(report_id: str) -> int:
    """Send the alert of one report, once: the first task to claim it sends it, a task queued
    again by the sweep finds it claimed; returns how many e-mails were sent."""
    if not Report.objects.filter(pk=report_id, alert_pending=True).update(alert_pending=False):
        return 0
    report = Report.objects.select_related("trail_system", "trail").filter(pk=report_id).first()
    if report is None:
        return 0
    system = report.trail_system
    alerts = ReportAlert.objects.filter(trail_system=system).select_related("user")
    recipients = [
        alert.user.email
        for alert in alerts
        if alert.user.email and role_for(alert.user, system) == Role.ADMINISTRATOR
    ]
    if not recipients:
        return 0
    with translation.override(system.language):
        category = report.get_category_display()
    context = {
        "system_name": system.name,
        "category": category,
        "description": report.description,
        "trail_name": report.trail.name if report.trail else "",
        "metres": round(report.trail_distance_km * 1000) if report.trail_distance_km else None,
        "reports_url": f"{settings.PUBLIC_BASE_URL}/admin/trail-systems/{system.pk}/reports/",
    }
    subject, body = (
        render_message(f"reports/{name}", context, language=system.language)
        for name in ("alert_subject.txt", "alert_email.txt")
    )
    sent = 0
    for address in recipients:
        try:
            mail.send_mail(
                subject_line(subject),
                body,
                None,
                [address],
            )
            sent += 1
        except Exception:
            logger.exception("Report alert of %s to an Administrator failed", report.pk)
    return sent
