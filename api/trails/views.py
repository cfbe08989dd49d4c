"""Management endpoints of trail systems, trails and points (section 4).

Every view follows the documented check order: credential and scope (ScopePermission),
then the path's object (404), then the caller's rights on its system (authorize), then a
service function. The two base classes below serve trails, points and updates alike."""

from collections.abc import Callable, Iterable
from functools import partial

from django.db.models import Model
from drf_spectacular.types import OpenApiTypes
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

from api.permissions import authorize, request_actor
from api.trails import serializers as shapes
from api.trails.serializers import HistoryQuerySerializer, StatusChangeSerializer
from core.errors import Invalid
from publishing import scheduling
from publishing.weather import weather_for
from trails import enums, selectors, services
from trails.models import TrailSystem
from trails.trash import trash_point, trash_trail


def managed_system(request: Request, system_id: str, *, admin: bool = False) -> TrailSystem:
    system = selectors.system_or_404(system_id)
    system.role = authorize(request, system, admin=admin)
    return system


def validated(serializer_class: type[serializers.Serializer], request: Request) -> dict:
    serializer = serializer_class(data=request.data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def changes(serializer_class: type[serializers.Serializer], request: Request) -> dict:
    """A PATCH body's editable fields; fields the body does not name are left alone."""
    data = validated(serializer_class, request)
    if not data:
        raise Invalid("no_changes", "The body holds no editable field.")
    return data


def flag(request: Request, name: str) -> bool:
    return request.query_params.get(name, "").lower() == "true"


# OpenAPI: the views build their responses by hand, so each operation names its shapes here.


def true_flag(name: str, description: str) -> OpenApiParameter:
    return OpenApiParameter(name, OpenApiTypes.BOOL, description=f"true: {description}")


def shape(name: str, **fields: serializers.Field) -> serializers.Serializer:
    """A one-off response wrapper; the renderer camelizes its field names like any other."""
    return inline_serializer(name, fields)


def done(name: str, **fields: serializers.Field) -> serializers.Serializer:
    return shape(name, ok=serializers.BooleanField(), **fields)


class SystemCollectionView(APIView):
    """GET (list) and POST (create) of /trail-systems/:id/<key>; subclasses name the parts."""

    key: str
    list_serializer: type[serializers.Serializer]
    item_serializer: type[serializers.Serializer]
    create_serializer: type[serializers.Serializer]
    create: Callable[..., Model]  # a service: create(system=, fields=, actor=)
    lookup: Callable[[str], Model]

    def __init_subclass__(cls, **kwargs):
        """OpenAPI of every subclass: GET is {trailSystemId, <key>: [item]} (a trail list adds
        geoJson only on ?include=geoJson), POST takes create_serializer and answers 201 item."""
        super().__init_subclass__(**kwargs)
        wrapper = shape(
            cls.__name__.removesuffix("View"),
            trail_system_id=serializers.CharField(),
            **{cls.key: cls.item_serializer(many=True)},
        )
        extend_schema_view(
            get=extend_schema(responses=wrapper),
            post=extend_schema(request=cls.create_serializer, responses={201: cls.item_serializer}),
        )(cls)

    def rows(self, request: Request, system: TrailSystem) -> Iterable[Model]:
        raise NotImplementedError

    def list_serializer_for(self, request: Request) -> type[serializers.Serializer]:
        return self.list_serializer

    def get(self, request: Request, system_id: str) -> Response:
        system = managed_system(request, system_id)
        rows = self.rows(request, system)
        serializer = self.list_serializer_for(request)(rows, many=True)
        return Response({"trail_system_id": system.pk, self.key: serializer.data})

    def post(self, request: Request, system_id: str) -> Response:
        system = managed_system(request, system_id)
        created = self.create(
            system=system,
            fields=validated(self.create_serializer, request),
            actor=request_actor(request),
        )
        return Response(self.item_serializer(self.lookup(created.pk)).data, status.HTTP_201_CREATED)


class ItemView(APIView):
    """GET, PATCH and DELETE of one row that belongs to a trail system."""

    item_serializer: type[serializers.Serializer]
    change_serializer: type[serializers.Serializer]
    lookup: Callable[[str], Model]
    row_name: str  # the keyword the services name the row by: trail, point, update
    change: Callable[..., None]  # a service: change(<row_name>=, changes=, actor=)
    remove: Callable[..., None]  # a service: remove(<row_name>=, actor=)
    removed: dict  # what DELETE adds to {ok, id}

    def __init_subclass__(cls, **kwargs):
        """OpenAPI of every subclass: GET item, PATCH change -> changed row, DELETE {ok, id,
        **removed}. changed_serializer is read from an instance: the base's is a property."""
        super().__init_subclass__(**kwargs)
        removed = done(
            cls.__name__.removesuffix("View") + "Removed",
            id=serializers.CharField(),
            **{name: serializers.BooleanField() for name in cls.removed},
        )
        extend_schema_view(
            get=extend_schema(responses=cls.item_serializer),
            patch=extend_schema(request=cls.change_serializer, responses=cls().changed_serializer),
            delete=extend_schema(responses={200: removed}),
        )(cls)

    def find(self, pk: str) -> Model:
        """The row as writes need it and show it (lighter than GET's when that differs)."""
        return self.lookup(pk)

    @property
    def changed_serializer(self) -> type[serializers.Serializer]:
        return self.item_serializer

    def authorized(self, request: Request, row: Model) -> Model:
        authorize(request, row.trail_system)
        return row

    def get(self, request: Request, pk: str) -> Response:
        return Response(self.item_serializer(self.authorized(request, self.lookup(pk))).data)

    def patch(self, request: Request, pk: str) -> Response:
        row = self.authorized(request, self.find(pk))
        self.change(
            **{self.row_name: row},
            changes=changes(self.change_serializer, request),
            actor=request_actor(request),
        )
        return Response(self.changed_serializer(self.find(pk)).data)

    def delete(self, request: Request, pk: str) -> Response:
        row = self.authorized(request, self.find(pk))
        self.remove(**{self.row_name: row}, actor=request_actor(request))
        return Response({"ok": True, "id": row.pk, **self.removed})


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
            changes=changes(shapes.TrailSystemChangeSerializer, request),
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
        return request.query_params.get("include") == "geoJson"

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
    find = staticmethod(selectors.trail_or_404)
    change = staticmethod(services.change_trail)
    remove = staticmethod(trash_trail)
    removed = {"trashed": True}


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
