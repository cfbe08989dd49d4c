"""Scheduled status changes of a trail system: list, create, read, PATCH, DELETE. The same
rules as trail writes: read scope to read, write scope to write, any role on the system."""

from django.utils import timezone
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.bases import changes, done, managed_system, shape, validated
from api.permissions import request_actor
from api.schedules.serializers import (
    ScheduleCreateSerializer,
    ScheduleFieldsSerializer,
    ScheduleSerializer,
)
from schedules import selectors, services


@extend_schema_view(
    get=extend_schema(
        operation_id="schedules_list",
        responses=shape(
            "Schedules",
            trail_system_id=serializers.CharField(),
            schedules=ScheduleSerializer(many=True),
        ),
    ),
    post=extend_schema(
        operation_id="schedules_create",
        request=ScheduleCreateSerializer,
        responses={201: ScheduleSerializer},
    ),
)
class SchedulesView(APIView):
    def get(self, request: Request, system_id: str) -> Response:
        system = managed_system(request, system_id)
        schedules = selectors.schedules_of_system(system, timezone.now())
        return Response(
            {
                "trail_system_id": system.pk,
                "schedules": ScheduleSerializer(schedules, many=True).data,
            }
        )

    def post(self, request: Request, system_id: str) -> Response:
        system = managed_system(request, system_id)
        schedule = services.create_schedule(
            system=system,
            **validated(ScheduleCreateSerializer, request),
            actor=request_actor(request),
        )
        shown = selectors.schedule_or_404(system, schedule.pk, timezone.now())
        return Response(ScheduleSerializer(shown).data, status.HTTP_201_CREATED)


@extend_schema_view(
    get=extend_schema(operation_id="schedules_retrieve", responses=ScheduleSerializer),
    patch=extend_schema(
        operation_id="schedules_partial_update",
        request=ScheduleFieldsSerializer,
        responses=ScheduleSerializer,
    ),
    delete=extend_schema(
        operation_id="schedules_destroy",
        responses={
            200: done(
                "ScheduleRemoved", id=serializers.CharField(), deleted=serializers.BooleanField()
            )
        },
    ),
)
class ScheduleView(APIView):
    def get(self, request: Request, system_id: str, schedule_id: str) -> Response:
        system = managed_system(request, system_id)
        schedule = selectors.schedule_or_404(system, schedule_id, timezone.now())
        return Response(ScheduleSerializer(schedule).data)

    def patch(self, request: Request, system_id: str, schedule_id: str) -> Response:
        system = managed_system(request, system_id)
        schedule = selectors.schedule_or_404(system, schedule_id, timezone.now())
        services.change_schedule(
            schedule=schedule,
            **changes(ScheduleFieldsSerializer, request),
            actor=request_actor(request),
        )
        changed = selectors.schedule_or_404(system, schedule_id, timezone.now())
        return Response(ScheduleSerializer(changed).data)

    def delete(self, request: Request, system_id: str, schedule_id: str) -> Response:
        system = managed_system(request, system_id)
        schedule = selectors.schedule_or_404(system, schedule_id, timezone.now())
        services.delete_schedule(schedule=schedule, actor=request_actor(request))
        return Response({"ok": True, "id": schedule.pk, "deleted": True})
