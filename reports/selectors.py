"""Reads of reports: a system's list for triage (groups only, newest first, a page at a
time) and one report."""

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q, QuerySet

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


def reports_kept_since(since: datetime) -> int:
    """Reports of every system kept since then (the site's cap counts these, never a refused
    post)."""
    return Report.objects.filter(created_on__gte=since).count()


@dataclass(frozen=True)
class Page:
    reports: list[Report]
    next: str | None  # the id to pass as `before` for the next page


def page_of_reports(
    system: TrailSystem, *, state: str | None, limit: int, before: str | None
) -> Page:
    """`limit` reports received before the report `before` (its id, from the last page);
    an id not in the system's list starts from the newest."""
    reports = reports_of_system(system, state=state)
    if before:
        last = Report.objects.filter(trail_system=system, pk=before).values("created_on").first()
        if last is not None:
            reports = reports.filter(
                Q(created_on__lt=last["created_on"])
                | Q(created_on=last["created_on"], id__lt=before)
            )
    rows = list(reports[: limit + 1])
    return Page(rows[:limit], rows[limit - 1].pk if len(rows) > limit else None)


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
