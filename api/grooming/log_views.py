"""GET /trail-systems/:id/grooming-log (JSON, CSV or XLSX) and its approvals: any role of the
system reads the log, Administrators approve a period and reopen it."""

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.bases import managed_system, validated
from api.grooming.log_serializers import (
    ApprovalSerializer,
    GroomingLogSerializer,
    PeriodSerializer,
    ReopenSerializer,
)
from api.negotiation import OwnFormatNegotiation
from api.permissions import request_actor
from api.renderers import ShapedJSONRenderer
from core.errors import Invalid, NotFound
from grooming import approvals, log, log_files
from grooming.models import GroomingLogApproval

FORMATS = ("json", *log_files.FILES)


def download(document: dict, kind: str) -> HttpResponse:
    """The log as a file named for the system and the period."""
    media_type, write = log_files.FILES[kind]
    response = HttpResponse(write(document), content_type=media_type)
    response["Content-Disposition"] = (
        f'attachment; filename="{log_files.file_name(document, kind)}"'
    )
    return response


class GroomingLogView(APIView):
    content_negotiation_class = OwnFormatNegotiation
    renderer_classes = [ShapedJSONRenderer]

    @extend_schema(
        operation_id="grooming_log_retrieve",
        summary="The grooming log of a period: sessions, hours, distances driven and groomed",
        parameters=[
            OpenApiParameter("from", OpenApiTypes.DATE, description="default: 6 days before `to`"),
            OpenApiParameter("to", OpenApiTypes.DATE, description="default: today, system's zone"),
            OpenApiParameter(
                "format", OpenApiTypes.STR, enum=FORMATS, description="json (default), csv or xlsx"
            ),
        ],
        responses={
            (200, "application/json"): OpenApiResponse(
                GroomingLogSerializer,
                description="JSON; with format=csv or xlsx the same log as a file",
            ),
            (200, "text/csv"): OpenApiTypes.STR,
            (200, log_files.FILES["xlsx"][0]): OpenApiTypes.BINARY,
        },
    )
    def get(self, request: Request, system_id: str) -> Response | HttpResponse:
        system = managed_system(request, system_id)
        kind = request.query_params.get("format", "json")
        if kind not in FORMATS:
            raise Invalid("invalid_field", f"must be one of {', '.join(FORMATS)}.", field="format")
        period = log.period(
            system=system,
            first=request.query_params.get("from"),
            last=request.query_params.get("to"),
        )
        document = log.grooming_log(system=system, period=period)
        if kind in log_files.FILES:
            return download(document, kind)
        return Response(document)


class GroomingLogApprovalsView(APIView):
    administrator_methods = ("POST",)  # read by GET / to describe the route

    @extend_schema(
        operation_id="grooming_log_approvals_create",
        summary="Approve the grooming log of a period (Administrators)",
        request=PeriodSerializer,
        responses={201: ApprovalSerializer},
    )
    def post(self, request: Request, system_id: str) -> Response:
        system = managed_system(request, system_id, admin=True)
        body = validated(PeriodSerializer, request)
        period = log.period(system=system, first=body["from"], last=body["to"])
        approval = approvals.approve_grooming_log(
            system=system, period=period, actor=request_actor(request)
        )
        return Response(log.approval_document(approval), status.HTTP_201_CREATED)


class GroomingLogReopenView(APIView):
    administrator_methods = ("POST",)

    @extend_schema(
        operation_id="grooming_log_approvals_reopen",
        summary="Reopen an approved period, saying why (Administrators)",
        request=ReopenSerializer,
        responses={200: ApprovalSerializer},
    )
    def post(self, request: Request, system_id: str, approval_id: str) -> Response:
        system = managed_system(request, system_id, admin=True)
        approval = GroomingLogApproval.objects.filter(trail_system=system, pk=approval_id).first()
        if approval is None:
            raise NotFound("not_found", "No such approval of this trail system.")
        reopened = approvals.reopen_grooming_log(
            approval=approval,
            actor=request_actor(request),
            reason=validated(ReopenSerializer, request)["reason"],
        )
        return Response(log.approval_document(reopened))
