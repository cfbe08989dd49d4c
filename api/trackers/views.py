"""/trail-systems/:id/trackers and /trackers/:id: a system's GPS trackers (live grooming).

Any manager of the system may list (read scope), create and revoke (write scope) its trackers,
as they may upload a grooming track. Checks run in the documented order."""

from django.utils.cache import patch_cache_control
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.bases import done, managed_system, shape, validated
from api.permissions import authorize, request_actor
from api.trackers.serializers import (
    TrackerCreateSerializer,
    TrackerSerializer,
    TrackerWithSecretSerializer,
)
from grooming import trackers


class TrackersView(APIView):
    @extend_schema(
        operation_id="trackers_list",
        summary="The trail system's trackers, oldest first (without their secrets)",
        responses=shape(
            "Trackers",
            trail_system_id=serializers.CharField(),
            trackers=TrackerSerializer(many=True),
        ),
    )
    def get(self, request: Request, system_id: str) -> Response:
        system = managed_system(request, system_id)
        rows = TrackerSerializer(trackers.trackers_of_system(system), many=True).data
        return Response({"trail_system_id": system.pk, "trackers": rows})

    @extend_schema(
        operation_id="trackers_create",
        summary="Create a tracker; its secret and tracking URL are in this answer only",
        request=TrackerCreateSerializer,
        responses={201: TrackerWithSecretSerializer},
    )
    def post(self, request: Request, system_id: str) -> Response:
        system = managed_system(request, system_id)
        body = validated(TrackerCreateSerializer, request)
        created = trackers.create_tracker(system=system, actor=request_actor(request), **body)
        created.tracker.grooming_now = False
        data = {
            **TrackerSerializer(created.tracker).data,
            "secret": created.secret,
            **trackers.tracking_addresses(created.secret),
        }
        answer = Response(data, status.HTTP_201_CREATED)
        patch_cache_control(answer, no_store=True)  # the secret is in this body only
        return answer


class TrackerView(APIView):
    @extend_schema(
        operation_id="trackers_destroy",
        summary="Revoke a tracker: its next position is refused (403), its session ends",
        responses={
            200: done(
                "TrackerRevoked", id=serializers.CharField(), revoked=serializers.BooleanField()
            )
        },
    )
    def delete(self, request: Request, tracker_id: str) -> Response:
        tracker = trackers.tracker_or_404(tracker_id)
        authorize(request, tracker.trail_system)
        trackers.revoke_tracker(tracker=tracker, actor=request_actor(request))
        return Response({"ok": True, "id": tracker.pk, "revoked": True})
