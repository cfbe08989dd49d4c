"""The one e-mail a reporter gets: when the report is resolved, with the crew's note. Each
address is claimed (answered_on) in the database before its message is sent, so a retried
task never sends twice; an address is used for nothing else. In the system's language."""

from django.db.models import Q
from django.utils import timezone, translation

from core.messages import send_email
from reports.models import Report, State


def _claim(group_id: str) -> list[Report]:
    """The group's unanswered addresses, marked answered in one statement each."""
    waiting = (
        Report.objects.filter(Q(pk=group_id) | Q(duplicate_of_id=group_id))
        .filter(state=State.RESOLVED, answered_on__isnull=True)
        .exclude(email="")
        .select_related("trail_system", "trail")
    )
    claimed = []
    for report in waiting:
        if Report.objects.filter(pk=report.pk, answered_on__isnull=True).update(
            answered_on=timezone.now()
        ):
            claimed.append(report)
    return claimed


def answer_group(group_id: str) -> int:
    """E-mail every reporter of the resolved group who left an address and has not been
    answered yet; returns how many messages were sent."""
    group = Report.objects.filter(pk=group_id).only("note").first()
    if group is None:
        return 0
    sent = 0
    for report in _claim(group_id):
        system = report.trail_system
        with translation.override(system.language):
            category = report.get_category_display()
        context = {
            "system_name": system.name,
            "category": category,
            "trail_name": report.trail.name if report.trail else "",
            "received_on": report.created_on,
            "note": group.note,
        }
        sent += send_email(
            "reports/resolved", context, [report.email], language=system.language, about=report.pk
        )
    return sent
