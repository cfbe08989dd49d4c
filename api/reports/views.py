"""Rider reports of a trail system: the triage list, a report's change (PATCH) and its photo.
Any role of the system may read and triage; the reporter's address is shown to
Administrators only. A report is the system's business: another system's, or a missing one,
is 404 after the caller's credential and scope are checked."""

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.bases import changes, managed_system, shape
from api.permissions import authorize, request_actor
from api.reports.serializers import ReportChangeSerializer, ReportSerializer
from core.errors import Forbidden, Invalid, NotFound
from reports import selectors, services, storage
from reports.models import Report, State
from reports.photos import STORED_CONTENT_TYPE
from trails.enums import Role

PAGE_DEFAULT, PAGE_MAX = 50, 200
REPORT_ID = OpenApiParameter("report_id", str, OpenApiParameter.PATH, description="report id")


def _limit(request: Request) -> int:
    raw = request.query_params.get("limit", str(PAGE_DEFAULT))
    if not raw.isdigit() or not 1 <= int(raw) <= PAGE_MAX:
        raise Invalid(
            "invalid_field", f"must be a whole number from 1 to {PAGE_MAX}.", field="limit"
        )
    return int(raw)


def _state(request: Request) -> str | None:
    state = request.query_params.get("state")
    if state is not None and state not in State.values:
        raise Invalid("invalid_field", "must be new, resolved or dismissed.", field="state")
    return state


def _shown(request: Request, report: Report, role: str) -> dict:
    context = {"request": request, "with_email": role == Role.ADMINISTRATOR}
    return ReportSerializer(report, context=context).data


class ReportsView(APIView):
    @extend_schema(
        operation_id="reports_list",
        summary="The trail system's rider reports, newest first, a page at a time",
        parameters=[
            OpenApiParameter("state", str, enum=State.values, description="Only this state."),
            OpenApiParameter(
                "limit",
                {"type": "integer", "minimum": 1, "maximum": PAGE_MAX, "default": PAGE_DEFAULT},
                description=f"Reports per page, 1 to {PAGE_MAX} ({PAGE_DEFAULT}).",
            ),
            OpenApiParameter(
                "before", str, description="The `next` of the previous page: the next page."
            ),
        ],
        responses=shape(
            "Reports",
            trail_system_id=serializers.CharField(),
            reports=ReportSerializer(many=True),
            next=serializers.CharField(
                allow_null=True, help_text="`before` of the next page; null on the last page."
            ),
        ),
    )
    def get(self, request: Request, system_id: str) -> Response:
        system = managed_system(request, system_id)
        state, limit = _state(request), _limit(request)
        page = selectors.page_of_reports(
            system, state=state, limit=limit, before=request.query_params.get("before")
        )
        context = {"request": request, "with_email": system.role == Role.ADMINISTRATOR}
        return Response(
            {
                "trail_system_id": system.pk,
                "reports": ReportSerializer(page.reports, many=True, context=context).data,
                "next": page.next,
            }
        )


def _report_of_caller(request: Request, report_id: str) -> tuple[Report, str]:
    """The report and the caller's role in its system; another system's report is 404, as a
    missing one: its id says nothing of what other systems were told."""
    report = selectors.report_or_404(report_id)
    try:
        return report, authorize(request, report.trail_system)
    except Forbidden:
        raise NotFound("report_not_found", f"No report {report_id!r}.") from None


class ReportView(APIView):
    @extend_schema(
        operation_id="reports_retrieve",
        summary="One rider report",
        parameters=[REPORT_ID],
        responses=ReportSerializer,
    )
    def get(self, request: Request, report_id: str) -> Response:
        report, role = _report_of_caller(request, report_id)
        return Response(_shown(request, report, role))

    @extend_schema(
        operation_id="reports_partial_update",
        summary="Triage a report: new, resolved (the reporters hear back once) or dismissed",
        parameters=[REPORT_ID],
        request=ReportChangeSerializer,
        responses=ReportSerializer,
    )
    def patch(self, request: Request, report_id: str) -> Response:
        report, role = _report_of_caller(request, report_id)
        group = services.change_report(
            report=report,
            **changes(ReportChangeSerializer, request),
            actor=request_actor(request),
        )
        return Response(_shown(request, selectors.report_or_404(group.pk), role))


class ReportPhotoView(APIView):
    @extend_schema(
        operation_id="reports_photo",
        summary="A report's photo (JPEG, without metadata)",
        parameters=[REPORT_ID],
        responses={(200, STORED_CONTENT_TYPE): OpenApiResponse(OpenApiTypes.BINARY)},
    )
    def get(self, request: Request, report_id: str) -> HttpResponse:
        report, _ = _report_of_caller(request, report_id)
        body = storage.read_photo(report.photo) if report.photo else None
        if body is None:
            raise NotFound("photo_not_found", "This report has no photo.")
        response = HttpResponse(body, content_type=STORED_CONTENT_TYPE)
        response["Cache-Control"] = "private, max-age=3600"
        response["X-Content-Type-Options"] = "nosniff"
        return response
