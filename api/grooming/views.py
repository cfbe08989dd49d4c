"""POST /trail-systems/:id/grooming-tracks and GET /trail-systems/:id/grooming."""

from djangorestframework_camel_case.util import underscoreize
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.parsers import BaseParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from api.bases import managed_system
from api.grooming.serializers import (
    GroomingJsonOptionsSerializer,
    GroomingOptionsSerializer,
    GroomingResultSerializer,
    GroomingSerializer,
)
from api.parsers import CamelCaseJSONParser
from api.permissions import request_actor
from api.trails.serializers import LINE_GEOMETRY_SCHEMA
from core.errors import Invalid
from grooming import selectors, services
from grooming.services import TOLERANCE_RANGE
from grooming.tracks import Track, TrackError, parse_geojson, parse_gpx
from trails.timezones import zone_of
from updates.enums import SURFACE_CONDITIONS

GPX_MEDIA_TYPE = "application/gpx+xml"
OPTION_NAMES = ("tolerance_meters", "groomed_at", "condition", "dry_run")


class TrackJsonParser(CamelCaseJSONParser):
    """Strict JSON; the options' names are camelCase like every body's, while a feature's
    properties (where converters keep a track's times) are kept as they came."""

    json_underscoreize = {
        **CamelCaseJSONParser.json_underscoreize,
        "ignore_fields": ("properties",),
    }


class GeoJsonParser(TrackJsonParser):
    media_type = "application/geo+json"


class GpxParser(BaseParser):
    """The GPX file as it came; grooming.tracks reads it."""

    media_type = GPX_MEDIA_TYPE

    def parse(self, stream, media_type=None, parser_context=None) -> bytes:
        return stream.read() if stream is not None else b""


class XmlGpxParser(GpxParser):
    """GPX sent as generic XML, as many HTTP clients label a .gpx file."""

    media_type = "application/xml"


class TextXmlGpxParser(GpxParser):
    media_type = "text/xml"


def _options(serializer_class, data) -> dict:
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def read_upload(request: Request) -> tuple[Track, dict]:
    """The track and its options: query parameters, overridden by a JSON body's members."""
    options = _options(GroomingOptionsSerializer, underscoreize(request.query_params.dict()))
    body = request.data
    try:
        if not body:
            raise TrackError("The body is empty: send a GPX file or GeoJSON lines.")
        if isinstance(body, bytes):
            return parse_gpx(body), options
        if isinstance(body, dict):
            members = {name: body[name] for name in OPTION_NAMES if name in body}
            options |= _options(GroomingJsonOptionsSerializer, members)
        return parse_geojson(body), options
    except TrackError as error:
        raise Invalid("invalid_geometry", str(error)) from None


OPTION_PARAMETERS = [
    OpenApiParameter(
        "toleranceMeters",
        {"type": "number", "minimum": TOLERANCE_RANGE[0], "maximum": TOLERANCE_RANGE[1]},
        description="5 to 50; default 15",
    ),
    OpenApiParameter(
        "groomedAt",
        OpenApiTypes.DATETIME,
        description="not in the future; default: the time of the track's last point, else now",
    ),
    OpenApiParameter(
        "condition",
        OpenApiTypes.STR,
        enum=SURFACE_CONDITIONS,
        description="a surface-conditions value; default groomed",
    ),
    OpenApiParameter("dryRun", OpenApiTypes.BOOL, description="true: measure, write nothing"),
]


# The JSON body: a track's lines. A schema-valid body can still be refused (400
# invalid_geometry) when its lines lie wholly outside the system, which the description says.
_TRACK_FEATURE = {
    "type": "object",
    "properties": {
        "type": {"type": "string", "enum": ["Feature"]},
        "geometry": LINE_GEOMETRY_SCHEMA,
        "properties": {
            "type": "object",
            "nullable": True,
            "description": "Free; the times GPX converters keep (coordinateProperties.times "
            "or coordTimes, dates per position) give the default groomedAt.",
        },
    },
    "required": ["type", "geometry"],
}
TRACK_GEOJSON = {
    "description": "A GeoJSON LineString, MultiLineString, Feature or FeatureCollection of "
    "lines. The track must come within toleranceMeters of at least one trail of the system "
    "(400 invalid_geometry otherwise).",
    "oneOf": [
        *LINE_GEOMETRY_SCHEMA["oneOf"],
        _TRACK_FEATURE,
        {
            "type": "object",
            "properties": {
                "type": {"type": "string", "enum": ["FeatureCollection"]},
                "features": {"type": "array", "items": _TRACK_FEATURE, "minItems": 1},
            },
            "required": ["type", "features"],
        },
    ],
}
GPX_SCHEMA = {
    "type": "string",
    "description": "A GPX 1.0 or 1.1 file with at least one track or route of two distinct "
    "points near a trail of the system.",
}


class GroomingTracksView(APIView):
    parser_classes = [TrackJsonParser, GeoJsonParser, GpxParser, XmlGpxParser, TextXmlGpxParser]

    @extend_schema(
        operation_id="grooming_tracks_create",
        summary="Post a groomer's GPS track: groomed conditions on the trails it covered",
        parameters=OPTION_PARAMETERS,
        request={
            "application/json": TRACK_GEOJSON,
            "application/geo+json": TRACK_GEOJSON,
            GPX_MEDIA_TYPE: GPX_SCHEMA,
        },
        responses={201: GroomingResultSerializer, 200: GroomingResultSerializer},
    )
    def post(self, request: Request, system_id: str) -> Response:
        system = managed_system(request, system_id)
        track, options = read_upload(request)
        result = services.record_grooming_track(
            system=system, track=track, actor=request_actor(request), **options
        )
        answer = status.HTTP_200_OK if result.track_id is None else status.HTTP_201_CREATED
        return Response(result.document(), answer)


class GroomingView(APIView):
    @extend_schema(
        operation_id="grooming_retrieve",
        summary="When each trail was last groomed, and the latest grooming passes",
        responses=GroomingSerializer,
    )
    def get(self, request: Request, system_id: str) -> Response:
        system = managed_system(request, system_id)
        document = {
            "trail_system_id": system.pk,
            "trails": selectors.last_groomed(system.pk),
            "tracks": selectors.recent_passes(system),
        }
        return Response(GroomingSerializer(document, context={"zone": zone_of(system)}).data)
