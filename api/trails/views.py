"""Management endpoints of trail systems, trails and points (section 4).

Every view follows the documented check order: credential and scope (ScopePermission),
then the path's object (404), then the caller's rights on its system (authorize), then a
service function (the bases are in api.bases)."""

from collections.abc import Callable
from functools import partial

from django.db.models import Model
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_view,
    inline_serializer,
)
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.bases import (
    ItemView,
    SystemCollectionView,
    changes,
    done,
    flag,
    managed_system,
    shape,
    true_flag,
    validated,
)
from api.permissions import authorize, request_actor
from api.trails import serializers as shapes
from api.trails.serializers import HistoryQuerySerializer, StatusChangeSerializer
from core.errors import Invalid
from publishing import scheduling
from publishing.weather import weather_for
from trails import enums, selectors, services
from trails.models import Trail
from trails.trash import trash_point, trash_trail

# Trail systems


@extend_schema_view(
    get=extend_schema(
        operation_id="trail_systems_list",
        parameters=[true_flag("all", "a superAdmin sees every system, not only their own")],
        responses=shape("TrailSystems", trail_systems=shapes.TrailSystemListSerializer(many=True)),
    )
)
class TrailSystemListView(APIView):
    def get(self, request: Request) -> Response:
        key = request.auth.key
        systems = selectors.systems_with_roles(
            request.user,
            restricted_to=key.trail_system_ids if key is not None else None,
            everything=flag(request, "all"),
        )
        return Response(
            {"trail_systems": shapes.TrailSystemListSerializer(systems, many=True).data}
        )


@extend_schema_view(
    get=extend_schema(responses=shapes.TrailSystemSerializer),
    patch=extend_schema(
        request=shapes.TrailSystemChangeSerializer, responses=shapes.TrailSystemSerializer
    ),
)
class TrailSystemView(APIView):
    administrator_methods = ("PATCH",)  # read by GET / to describe the route

    def get(self, request: Request, system_id: str) -> Response:
        system = managed_system(request, system_id)
        return Response(shapes.TrailSystemSerializer(system).data)

    def patch(self, request: Request, system_id: str) -> Response:
        system = managed_system(request, system_id, admin=True)
        services.change_trail_system(
            system=system,
            **changes(shapes.TrailSystemChangeSerializer, request),
            actor=request_actor(request),
        )
        changed = selectors.system_or_404(system_id)
        changed.role = system.role
        return Response(shapes.TrailSystemSerializer(changed).data)


@extend_schema(
    request=None,
    responses={202: done("CompileRequested", compile_request_id=serializers.CharField())},
)
class CompileView(APIView):
    def post(self, request: Request, system_id: str) -> Response:
        compile_request = scheduling.compile_now(managed_system(request, system_id))
        return Response(
            {"ok": True, "compile_request_id": compile_request.pk}, status.HTTP_202_ACCEPTED
        )


@extend_schema(
    responses=shape(
        "TrailSystemWeather",
        trail_system_id=serializers.CharField(),
        weather=serializers.JSONField(allow_null=True, help_text="null off the paid tiers"),
    )
)
class WeatherView(APIView):
    def get(self, request: Request, system_id: str) -> Response:
        system = managed_system(request, system_id)
        return Response({"trail_system_id": system.pk, "weather": weather_for(system)})


# Trails


@extend_schema_view(
    get=extend_schema(
        parameters=[
            OpenApiParameter(
                "include",
                enum=["geoJson"],
                description="geoJson: each trail also shows geoJson, as GET /trails/{id} does",
            )
        ]
    )
)
class TrailsView(SystemCollectionView):
    """geoJson is shown only by GET /trails/:id and ?include=geoJson (section 2)."""

    key = "trails"
    item_serializer = shapes.TrailSerializer
    create_serializer = shapes.TrailCreateSerializer
    create = staticmethod(services.create_trail)
    lookup = staticmethod(selectors.trail_or_404)

    @staticmethod
    def with_geometry(request: Request) -> bool:
        include = request.query_params.get("include")
        if include not in (None, "geoJson"):
            raise Invalid("invalid_field", "the only value is geoJson.", field="include")
        return include == "geoJson"

    def list_serializer_for(self, request):
        if self.with_geometry(request):
            return shapes.TrailWithGeoJsonSerializer
        return shapes.TrailSerializer

    def rows(self, request, system):
        return selectors.trails_of_system(system, with_geometry=self.with_geometry(request))


class TrailView(ItemView):
    row_name = "trail"
    item_serializer = shapes.TrailWithGeoJsonSerializer
    changed_serializer = shapes.TrailSerializer
    change_serializer = shapes.TrailChangeSerializer
    lookup = staticmethod(partial(selectors.trail_or_404, with_geometry=True))
    find = staticmethod(selectors.trail_to_show_or_404)
    find_to_change = staticmethod(selectors.trail_to_change_or_404)
    change = staticmethod(services.change_trail)
    remove = staticmethod(trash_trail)
    removed = {"trashed": True}

    def answered(self, pk: str, changed: Trail) -> Trail:
        """The service's written row: one statement for the activities, not two re-reading."""
        return selectors.with_activities(changed)


@extend_schema(
    request=shapes.TrailsStatusSerializer,
    responses=done(
        "TrailsStatusChanged",
        status=serializers.ChoiceField(enums.TrailStatus.choices),
        updated=inline_serializer(
            "StatusChangedTrail",
            {"id": serializers.CharField(), "name": serializers.CharField()},
            many=True,
        ),
    ),
)
class TrailsStatusView(APIView):
    def post(self, request: Request, system_id: str) -> Response:
        system = managed_system(request, system_id)
        data = validated(shapes.TrailsStatusSerializer, request)
        trail_ids = None if data["all"] else data["trail_ids"]
        updated = services.set_trails_status(
            system=system, status=data["status"], trail_ids=trail_ids, actor=request_actor(request)
        )
        return Response({"ok": True, "status": data["status"], "updated": updated})


# Points


class PointsView(SystemCollectionView):
    key = "points"
    list_serializer = item_serializer = shapes.PointSerializer
    create_serializer = shapes.PointCreateSerializer
    create = staticmethod(services.create_point)
    lookup = staticmethod(selectors.point_or_404)

    def rows(self, request, system):
        return selectors.points_of_system(system)


class PointView(ItemView):
    row_name = "point"
    item_serializer = shapes.PointSerializer
    change_serializer = shapes.PointFieldsSerializer
    lookup = staticmethod(selectors.point_or_404)
    change = staticmethod(services.change_point)
    remove = staticmethod(trash_point)
    removed = {"trashed": True}


# Status history


class HistoryView(APIView):
    """GET /trails/:id/history and /points/:id/history: read scope and the row's own access
    rules and 404; newest first, ?limit= 1 to 500 (default 100)."""

    id_key: str
    row_name: str
    lookup: Callable[[str], Model]

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        extend_schema(
            parameters=[HistoryQuerySerializer],
            responses=shape(
                cls.__name__.removesuffix("View"),
                **{cls.id_key: serializers.CharField()},
                history=StatusChangeSerializer(many=True),
            ),
        )(cls)

    def get(self, request: Request, pk: str) -> Response:
        row = self.lookup(pk)
        authorize(request, row.trail_system)
        query = HistoryQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        changes = selectors.status_history(
            **{self.row_name: row}, limit=query.validated_data["limit"]
        )
        return Response(
            {self.id_key: row.pk, "history": StatusChangeSerializer(changes, many=True).data}
        )


class TrailHistoryView(HistoryView):
    id_key = "trail_id"
    row_name = "trail"
    lookup = staticmethod(selectors.trail_or_404)


class PointHistoryView(HistoryView):
    id_key = "point_id"
    row_name = "point"
    lookup = staticmethod(selectors.point_or_404)
