"""GET / and GET /update-types: what a client needs to find its way, with no credential.

The endpoints list is generated from the URL conf and each view's declared permissions, so a
new route shows up here without anyone keeping a list.
"""

import re
from collections.abc import Iterator

from django.conf import settings
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils.translation import get_language_from_request
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.permissions import SAFE_METHODS, AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from api.permissions import IdTokenRequired
from apikeys.enums import KeyScope
from core.errors import Invalid
from core.names import camel
from trails.enums import (
    MARKER_CLASSES,
    Difficulty,
    Language,
    LineStyle,
    PointStatus,
    TempMeasurement,
    TrailStatus,
    TrailType,
)
from updates.enums import SURFACE_CONDITIONS, NoticeSeverity, UpdateType
from updates.types import UPDATE_TYPES, FieldTemplate, UpdateTypeTemplate, in_language

API_URLCONF = "api.urls"
API_VERSION = "1"
METHOD_ORDER = ("GET", "POST", "PUT", "PATCH", "DELETE")
# Path parameters are written as the spec writes them: /trails/:id; a second one by its name:
# /trail-systems/:id/schedules/:scheduleId.
PATH_PARAMETER = re.compile(r"<(?:\w+:)?(\w+)>")

# What GET / returns under `enums`: names as the spec's table, values exactly as the spec.
PUBLIC_ENUMS: dict[str, list[str]] = {
    "trailStatus": TrailStatus.values,
    "pointStatus": PointStatus.values,
    "difficulty": Difficulty.values,
    "trailType": TrailType.values,
    "lineStyle": LineStyle.values,
    "markerClass": list(MARKER_CLASSES),
    "updateType": UpdateType.values,
    "noticeSeverity": NoticeSeverity.values,
    "surfaceConditions": list(SURFACE_CONDITIONS),
    "language": Language.values,
    "tempMeasurement": TempMeasurement.values,
    "keyScopes": KeyScope.values,
}


class PublicView(APIView):
    # Needs no credential and ignores any that is sent.

    authentication_classes: list = []
    permission_classes = [AllowAny]


def _view_methods(callback) -> list[str]:
    actions = getattr(callback, "actions", None)
    if actions:
        names = set(actions)
    else:
        view_cls = callback.cls
        names = {name for name in view_cls.http_method_names if hasattr(view_cls, name)}
    return [method for method in METHOD_ORDER if method.lower() in names]


def credential_needed(view_cls, method: str) -> str:
    """The spec's "Credential" column: none, ID token, Administrator or any."""
    permissions = view_cls.permission_classes
    if all(issubclass(permission, AllowAny) for permission in permissions):
        return "none"
    if any(issubclass(permission, IdTokenRequired) for permission in permissions):
        return "ID token"
    if method in getattr(view_cls, "administrator_methods", ()):
        return "Administrator"
    return "any"


def scope_needed(view_cls, credential: str, method: str) -> str:
    """The spec's "Scope" column: key scopes apply wherever any credential is accepted."""
    if credential in ("none", "ID token"):
        return "none"
    if any(getattr(p, "write_for_reads", False) for p in view_cls.permission_classes):
        return "write"
    return "read" if method in SAFE_METHODS else "write"


def _spec_path(route: str) -> str:
    route = PATH_PARAMETER.sub(":id", route, count=1)
    return PATH_PARAMETER.sub(lambda match: f":{camel(match.group(1))}", route)


def _walk(patterns, prefix: str) -> Iterator[dict]:
    for pattern in patterns:
        route = str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            yield from _walk(pattern.url_patterns, prefix + route)
        elif isinstance(pattern, URLPattern) and hasattr(pattern.callback, "cls"):
            if route.startswith("^"):
                continue  # the catch-all that answers not_found
            path = "/" + _spec_path(prefix + route)
            for method in _view_methods(pattern.callback):
                credential = credential_needed(pattern.callback.cls, method)
                yield {
                    "method": method,
                    "path": path,
                    "credential": credential,
                    "scope": scope_needed(pattern.callback.cls, credential, method),
                }


def api_endpoints() -> list[dict]:
    """Every route of the management interface, in URL-conf order."""
    return list(_walk(get_resolver(API_URLCONF).url_patterns, ""))


def auth_description() -> dict:
    return {
        "header": "Authorization: Bearer <API key or ID token>",
        "alternative_header": "X-API-Key: <API key>",
        "api_key_prefix": settings.API_KEY_PREFIX,
        "api_keys": (
            f"Credentials starting with {settings.API_KEY_PREFIX} are API keys; create them "
            "with POST /keys using an ID token. Keys have scopes read or read and write and "
            "may be limited to some trail systems."
        ),
        "id_tokens": (
            "Any other credential is verified as a Firebase ID token of project "
            f"{settings.FIREBASE_PROJECT_ID}; ID tokens always have scopes read and write."
        ),
    }


class ApiRootView(PublicView):
    @extend_schema(
        operation_id="discovery",
        summary="Name, version, docs, how to authenticate, every endpoint and enumeration",
        responses=OpenApiTypes.OBJECT,
    )
    def get(self, request):
        return Response(
            {
                "name": settings.SPECTACULAR_SETTINGS["TITLE"],
                "version": API_VERSION,
                "docs": request.build_absolute_uri(reverse("api-docs")),
                "schema": request.build_absolute_uri(reverse("api-schema")),
                "auth": auth_description(),
                "endpoints": api_endpoints(),
                "enums": PUBLIC_ENUMS,
            }
        )


def _field_entry(template: FieldTemplate, language: str) -> dict:
    entry = {
        "property": template.property,
        "element": template.element,
        "label": in_language(template.label, language),
        "help": in_language(template.help, language),
        "required": template.required,
    }
    if template.options is not None:
        entry["options"] = [
            {"value": value, "label": in_language(text, language)}
            for value, text in template.options
        ]
    return entry


def update_type_entry(template: UpdateTypeTemplate, language: str) -> dict:
    return {
        "type": template.type,
        "label": in_language(template.label, language),
        "description": in_language(template.description, language),
        "attach_to_trails": template.attach_to_trails,
        "fields": [_field_entry(field, language) for field in template.fields],
    }


def requested_language(request) -> str:
    """?language=en|fr, else the Accept-Language header, else English."""
    language = request.query_params.get("language")
    if language is None:
        return get_language_from_request(request._request)
    if language not in Language.values:
        raise Invalid("invalid_field", f"must be one of {Language.values}.", field="language")
    return language


class UpdateTypesView(PublicView):
    @extend_schema(
        operation_id="update_types",
        summary="The three update types and the fields each one takes",
        parameters=[
            OpenApiParameter(
                "language", enum=Language.values, description="Labels in en (default) or fr."
            )
        ],
        responses=OpenApiTypes.OBJECT,
    )
    def get(self, request):
        language = requested_language(request)
        return Response(
            {
                "update_types": [
                    update_type_entry(template, language) for template in UPDATE_TYPES.values()
                ]
            }
        )
