"""Reads of reports: a system's list for triage (groups only, newest first) and one report."""

from django.db.models import QuerySet

from core.errors import NotFound
from reports.models import Report
from trails.models import TrailSystem


def reports_of_system(system: TrailSystem, *, state: str | None = None) -> QuerySet[Report]:
    reports = Report.objects.filter(trail_system=system, duplicate_of__isnull=True)
    if state:
        reports = reports.filter(state=state)
    return (
        reports.select_related("trail")
        .defer("trail__geometry", "trail__elevations")
        .order_by("-created_on", "-id")
    )


def report_or_404(report_id: str) -> Report:
    report = (
        Report.objects.select_related("trail_system", "trail")
        .defer("trail__geometry", "trail__elevations")
        .filter(pk=report_id)
        .first()
    )
    if report is None:
        raise NotFound("report_not_found", f"No report {report_id!r}.")
    return report


def new_report_count(system: TrailSystem) -> int:
    return Report.objects.filter(
        trail_system=system, duplicate_of__isnull=True, state="new"
    ).count()
