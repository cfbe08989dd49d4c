"""API-wide views: the not-found catch-all and the offline docs page."""

import re
from pathlib import Path

import drf_spectacular_sidecar
from django.http import FileResponse, JsonResponse
from django.urls import reverse
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularSwaggerView
from rest_framework.decorators import api_view, authentication_classes, permission_classes
from rest_framework.permissions import AllowAny

from api.errors import envelope
from core.errors import Invalid, NotFound

EMPTY_SYSTEM_ID = re.compile(r"^/api/v1/trail-systems//")


@extend_schema(exclude=True)
@api_view(["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"])
@authentication_classes([])
@permission_classes([AllowAny])
def route_not_found(request):
    """Unknown routes under /api/v1 answer 404 not_found in the envelope, whatever the method;
    a system route with an empty id (/trail-systems//trails) answers missing_trail_system."""
    if EMPTY_SYSTEM_ID.match(request.path):
        raise Invalid("missing_trail_system", "No trail system id in the path.")
    raise NotFound("not_found", f"No route {request.method} {request.path}.")


SWAGGER_UI_DIST = (
    Path(drf_spectacular_sidecar.__file__).parent
    / "static"
    / "drf_spectacular_sidecar"
    / "swagger-ui-dist"
)
SWAGGER_UI_ASSETS = frozenset(
    {
        "swagger-ui.css",
        "swagger-ui-bundle.js",
        "swagger-ui-standalone-preset.js",
        "favicon-32x32.png",
    }
)


class OfflineSwaggerView(SpectacularSwaggerView):
    """Swagger UI whose assets come from the sidecar package through this app: no CDN, and
    no static-files server needed in production."""

    url_name = "api-schema"

    @staticmethod
    def _swagger_ui_resource(filename: str) -> str:
        return reverse("api-docs-asset", args=[filename])

    @staticmethod
    def _swagger_ui_favicon() -> str:
        return reverse("api-docs-asset", args=["favicon-32x32.png"])


def swagger_ui_asset(request, filename: str):
    if filename not in SWAGGER_UI_ASSETS:
        return JsonResponse(envelope("not_found", f"No docs asset {filename}."), status=404)
    response = FileResponse((SWAGGER_UI_DIST / filename).open("rb"))
    response["Cache-Control"] = "public, max-age=86400"
    return response
