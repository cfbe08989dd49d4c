"""Closures of stretches of trails: POST on a trail, a system's list, and GET, PATCH and DELETE
(reopen) of one. The same rules as a trail's status: read scope to read, write scope to
write, any role on the trail's system."""

from django.utils import timezone
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import serializers, status
from rest_framework.parsers import BaseParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.bases import changes, flag, managed_system, shape, true_flag, validated
from api.closures.serializers import (
    ClosureCreateSerializer,
    ClosureFieldsSerializer,
    ClosureSerializer,
)
from api.grooming.views import GPX_SCHEMA, TRACK_GEOJSON
from api.permissions import authorize, request_actor
from closures import selectors, services
from closures.documents import route_check_document
from closures.models import Closure
from closures.routes import check_route
from core.errors import Invalid
from grooming.tracks import TrackError, parse_upload
from trails.selectors import trail_or_404


def _shown(closure_id: str) -> dict:
    closure = selectors.closure_or_404(closure_id)
    return ClosureSerializer(selectors.shown([closure], timezone.now())[0]).data


@extend_schema_view(
    post=extend_schema(
        operation_id="closures_create",
        request=ClosureCreateSerializer,
        responses={201: ClosureSerializer},
    )
)
class TrailClosuresView(APIView):
    def post(self, request: Request, pk: str) -> Response:
        trail = trail_or_404(pk, with_geometry=True)
        authorize(request, trail.trail_system)
        closure = services.create_closure(
            trail=trail, **validated(ClosureCreateSerializer, request), actor=request_actor(request)
        )
        return Response(_shown(closure.pk), status.HTTP_201_CREATED)


@extend_schema_view(
    get=extend_schema(
        operation_id="closures_list",
        parameters=[true_flag("all", "ended closures too")],
        responses=shape(
            "Closures",
            trail_system_id=serializers.CharField(),
            closures=ClosureSerializer(many=True),
        ),
    )
)
class SystemClosuresView(APIView):
    def get(self, request: Request, system_id: str) -> Response:
        system = managed_system(request, system_id)
        now = timezone.now()
        closures = selectors.closures_of_system(system.pk, now, ended=flag(request, "all"))
        shown = ClosureSerializer(selectors.shown(closures, now), many=True).data
        return Response({"trail_system_id": system.pk, "closures": shown})


@extend_schema_view(
    get=extend_schema(operation_id="closures_retrieve", responses=ClosureSerializer),
    patch=extend_schema(
        operation_id="closures_partial_update",
        request=ClosureFieldsSerializer,
        responses=ClosureSerializer,
    ),
    delete=extend_schema(
        operation_id="closures_destroy",
        description="Reopens the stretch now and answers the ended closure (as every DELETE "
        "of this interface answers with a body); the closure stays, ended, in ?all=true lists.",
        responses={200: ClosureSerializer},
    ),
)
class ClosureView(APIView):
    def _authorized(self, request: Request, closure_id: str) -> Closure:
        closure = selectors.closure_or_404(closure_id)
        authorize(request, closure.trail_system)
        return closure

    def get(self, request: Request, pk: str) -> Response:
        self._authorized(request, pk)
        return Response(_shown(pk))

    def patch(self, request: Request, pk: str) -> Response:
        closure = self._authorized(request, pk)
        services.change_closure(
            closure=closure,
            **changes(ClosureFieldsSerializer, request),
            actor=request_actor(request),
        )
        return Response(_shown(pk))

    def delete(self, request: Request, pk: str) -> Response:
        closure = self._authorized(request, pk)
        services.end_closure(closure=closure, actor=request_actor(request))
        return Response(_shown(pk))


class RouteParser(BaseParser):
    """The route as it came, GPX or GeoJSON: grooming.tracks reads both."""

    media_type = "*/*"

    def parse(self, stream, media_type=None, parser_context=None) -> bytes:
        return stream.read() if stream is not None else b""


@extend_schema_view(
    post=extend_schema(
        operation_id="route_check",
        summary="The closed stretches and Closed trails a route runs on",
        request={"application/gpx+xml": GPX_SCHEMA, "application/geo+json": TRACK_GEOJSON},
        responses=shape(
            "RouteCheck",
            trail_system_id=serializers.CharField(),
            closures=serializers.ListField(child=serializers.DictField()),
            closed_trails=serializers.ListField(child=serializers.DictField()),
        ),
    )
)
class RouteCheckView(APIView):
    parser_classes = [RouteParser]

    def post(self, request: Request, system_id: str) -> Response:
        system = managed_system(request, system_id)
        try:
            route = parse_upload(request.data or b"")
        except TrackError as error:
            raise Invalid("invalid_geometry", str(error)) from None
        check = check_route(system_id=system.pk, lines=route.lines, now=timezone.now())
        return Response(route_check_document(system.pk, check, system.language))
