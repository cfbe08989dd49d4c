"""E-mails to the Administrators who asked for one per new report: the report's words, its
place and nearest trail, and a link to the system's Reports page (never the reporter's
address or photo: the page shows those to whoever may see them), in the system's language."""

from django.utils import translation

from core.links import absolute
from core.messages import send_email
from reports.models import Report, ReportAlert
from trails.enums import Role
from trails.selectors import role_for


def alert_administrators(report_id: str) -> int:
    """Send the alert of one report; returns how many e-mails were sent."""
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
        "reports_url": absolute("admin:trail_system_reports", system.pk),
    }
    # One message per Administrator: none sees another's address.
    return sum(
        send_email("reports/alert", context, [address], language=system.language, about=report.pk)
        for address in recipients
    )
