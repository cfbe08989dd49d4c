"""The bases every management view shares: the path's trail system with the caller's rights
checked, validated bodies, query flags, OpenAPI shapes, and the two generic views that serve
trails, points and updates alike (each calls a service, never a model)."""

from collections.abc import Callable, Iterable

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
from core.errors import Invalid
from trails import selectors
from trails.models import TrailSystem


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
    """A boolean query parameter: absent, true or false; anything else is a clear 400."""
    value = request.query_params.get(name)
    if value is None or value.lower() == "false":
        return False
    if value.lower() == "true":
        return True
    raise Invalid("invalid_field", "must be true or false.", field=name)


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
    create: Callable[..., Model]  # a service: create(system=, actor=, **fields)
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
            **validated(self.create_serializer, request),
            actor=request_actor(request),
        )
        return Response(self.item_serializer(self.lookup(created.pk)).data, status.HTTP_201_CREATED)


class ItemView(APIView):
    """GET, PATCH and DELETE of one row that belongs to a trail system."""

    item_serializer: type[serializers.Serializer]
    change_serializer: type[serializers.Serializer]
    lookup: Callable[[str], Model]
    row_name: str  # the keyword the services name the row by: trail, point, update
    change: Callable[..., Model | None]  # a service: change(<row_name>=, actor=, **changes)
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

    def find_to_change(self, pk: str) -> Model:
        """The row as a PATCH needs it before writing: its system, for the caller's rights,
        and what the service reads of it (lighter than `find` where that differs)."""
        return self.find(pk)

    def answered(self, pk: str, changed: Model | None) -> Model:
        """The row as the PATCH answers it (`changed` is what the service returned): read
        again by default; a view whose service returns the written row builds it from that."""
        return self.find(pk)

    @property
    def changed_serializer(self) -> type[serializers.Serializer]:
        return self.item_serializer

    def authorized(self, request: Request, row: Model) -> Model:
        authorize(request, row.trail_system)
        return row

    def get(self, request: Request, pk: str) -> Response:
        return Response(self.item_serializer(self.authorized(request, self.lookup(pk))).data)

    def patch(self, request: Request, pk: str) -> Response:
        row = self.authorized(request, self.find_to_change(pk))
        changed = self.change(
            **{self.row_name: row},
            **changes(self.change_serializer, request),
            actor=request_actor(request),
        )
        return Response(self.changed_serializer(self.answered(pk, changed)).data)

    def delete(self, request: Request, pk: str) -> Response:
        row = self.authorized(request, self.find(pk))
        self.remove(**{self.row_name: row}, actor=request_actor(request))
        return Response({"ok": True, "id": row.pk, **self.removed})
