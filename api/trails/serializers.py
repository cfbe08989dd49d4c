"""JSON shapes of trail systems, trails and points (section 2): what comes in, what goes out.

Field names are snake_case here; the renderer and parser turn them into the interface's
camelCase (promoteTrailHUB is spelled literally, as the interface has it)."""

import copy
from typing import ClassVar

from django.db import models
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api.fields import (
    GeolocationField,
    HttpUrlField,
    JsDateTimeField,
    RequiredFieldsMixin,
    SingleLineCharField,
    StrictBooleanField,
    StrictCharField,
    StrictFloatField,
    StrictIntegerField,
)
from core import limits
from core.actors import Via
from core.ids import ID_MAX_LENGTH
from core.limits import HISTORY_LIMIT, TEXT_LIMIT
from core.links import HTTP_URL_PATTERN, absolute
from core.text import WHITESPACE
from trails import activities as catalog
from trails import enums
from trails.countries import COUNTRY_CODES, sms_countries
from trails.fields import API, POINT, TRAIL, TRAIL_SYSTEM
from trails.geometry import feature_collection
from trails.models import Point, Trail, TrailActivity, TrailSystem
from trails.timezones import known_zones, known_zones_set, zone_name


def activity_entry(activity: TrailActivity, language: str) -> dict:
    return catalog.activity_entry(activity.value, activity.status, activity.difficulty, language)


def trail_activities(trail: Trail) -> list[dict]:
    language = trail.trail_system.language
    return [activity_entry(activity, language) for activity in trail.activities.all()]


class ShapeSerializer(serializers.ModelSerializer):
    """A read-only response shape from model fields; dates ISO 8601 with milliseconds."""

    serializer_field_mapping = {
        **serializers.ModelSerializer.serializer_field_mapping,
        models.DateTimeField: JsDateTimeField,
    }
    # Each shape's fields as built from its model, by class: building them reads the model's
    # fields on every instance (0.8 ms of a trail's response); a copy costs a third of that.
    _built_fields: ClassVar[dict[type, dict]] = {}

    def get_fields(self) -> dict:
        built = ShapeSerializer._built_fields.get(type(self))
        if built is None:
            built = ShapeSerializer._built_fields[type(self)] = super().get_fields()
        return copy.deepcopy(built)


class SystemRowSerializer(ShapeSerializer):
    """What every trail, point and update shows: ids and the audit fields."""

    ROW_FIELDS = ("id", "trail_system_id")
    AUDIT_FIELDS = ("created_on", "created_by", "updated_on", "updated_by")

    trail_system_id = serializers.CharField()


# Trail systems


LIST_FIELDS = (
    "id", "name", "role", "inactive", "language", "total_trails", "open_trails",
    "caution_trails", "closed_trails", "geolocation", "updated_on",
)  # fmt: skip


class TrailSystemListSerializer(ShapeSerializer):
    """The list form of GET /trail-systems; `role` is set on each system by the selector."""

    role = serializers.CharField()
    geolocation = GeolocationField()

    class Meta:
        model = TrailSystem
        fields = LIST_FIELDS


class TrailSystemSerializer(TrailSystemListSerializer):
    """The stored document without internal fields, plus id and the caller's role."""

    promoteTrailHUB = serializers.BooleanField(source="promote_trail_hub")
    sms_countries = serializers.SerializerMethodField(
        help_text="Countries whose mobile numbers may sign up by text message (ISO 3166-1 "
        "alpha-2): the system's own list, or else the country of its location."
    )
    time_zone = serializers.SerializerMethodField(
        help_text="IANA name: the one set, else the zone of the system's location (UTC without one)"
    )
    activities = serializers.JSONField(source="activity_totals")
    updates = serializers.JSONField(source="published_updates")
    owner_id = serializers.CharField()
    closures_url = serializers.SerializerMethodField(
        help_text="The stretches of trail closed now: a GeoJSON FeatureCollection compiled "
        "with the published file (docs/developers/closures.md)."
    )
    geolocation_derived = serializers.BooleanField(
        source="location_derived",
        read_only=True,
        help_text="True when no location was set: geolocation is then the centre of the "
        "trails, recomputed with each publication until one is set in the web app.",
    )

    class Meta:
        model = TrailSystem
        fields = (
            *LIST_FIELDS,
            "geolocation_derived",
            *(name for name in TRAIL_SYSTEM.declared(API) if name not in LIST_FIELDS),
            "total_distance", "open_distance", "activities", "updates", "weather",
            "subscription", "created_on", "updated_by", "owner_id", "closures_url",
        )  # fmt: skip

    @extend_schema_field({"type": "array", "items": {"type": "string"}})
    def get_sms_countries(self, system: TrailSystem) -> list[str]:
        return sms_countries(system)

    def get_time_zone(self, system: TrailSystem) -> str:
        return zone_name(system)

    def get_closures_url(self, system: TrailSystem) -> str:
        return absolute("feed-closures", system.pk)

    def to_representation(self, instance) -> dict:
        data = super().to_representation(instance)
        if data["weather"] is None:
            del data["weather"]
        return data


@extend_schema_field(
    {
        "type": "string",
        "nullable": True,
        "enum": [*known_zones(), None],
        "description": "An IANA time zone name; null clears it, so the zone of the system's "
        "location is used.",
    }
)
class TimeZoneField(serializers.Field):
    """A known IANA zone name, or null ("" stored: derived from the location)."""

    default_error_messages = {
        "invalid": "must be an IANA time zone name such as America/Denver, or null.",
    }

    def validate_empty_values(self, data):
        if data is None:
            return True, ""
        return super().validate_empty_values(data)

    def to_internal_value(self, data) -> str:
        if not isinstance(data, str) or data not in known_zones_set():
            self.fail("invalid")
        return data

    def to_representation(self, value: str) -> str:
        return value


# The stored website counts its http:// prefix (trails.services.normalize_website): a website
# with a scheme is an http(s) URL, one without starts with its host.
_SCHEMELESS_MAX = TEXT_LIMIT - len("http://")


@extend_schema_field(
    {
        "type": "string",
        "description": "An http(s) URL, or a host and path without a scheme (http:// is "
        f"added; at most {TEXT_LIMIT} characters with it); empty clears it.",
        "anyOf": [
            {"maxLength": 0},
            {"pattern": HTTP_URL_PATTERN, "maxLength": TEXT_LIMIT},
            {
                "pattern": f"^[^/?#{WHITESPACE}]",
                "not": {"pattern": "^[A-Za-z][A-Za-z0-9+.-]*:"},
                "maxLength": _SCHEMELESS_MAX,
            },
        ],
    }
)
class WebsiteField(StrictCharField):
    """Checked by trails.services.normalize_website; this class carries its schema."""


class TrailSystemChangeSerializer(serializers.Serializer):
    """PATCH /trail-systems/:id: every field optional, text at most 2000 characters."""

    name = SingleLineCharField(max_length=TEXT_LIMIT, required=False)
    description = StrictCharField(max_length=TEXT_LIMIT, required=False, allow_blank=True)
    phone_number = StrictCharField(max_length=TEXT_LIMIT, required=False, allow_blank=True)
    website = WebsiteField(max_length=TEXT_LIMIT, required=False, allow_blank=True)
    depth_measurement = StrictCharField(max_length=TEXT_LIMIT, required=False)
    length_measurement = StrictCharField(max_length=TEXT_LIMIT, required=False)
    language = serializers.ChoiceField(enums.Language.choices, required=False)
    temp_measurement = serializers.ChoiceField(enums.TempMeasurement.choices, required=False)
    inactive = StrictBooleanField(required=False)
    hide_name = StrictBooleanField(required=False)
    promoteTrailHUB = StrictBooleanField(source="promote_trail_hub", required=False)
    sms_countries = serializers.ListField(
        child=serializers.ChoiceField(sorted(COUNTRY_CODES)),
        required=False,
        allow_null=True,
        max_length=len(COUNTRY_CODES),
        help_text="ISO 3166-1 alpha-2 codes of the countries whose mobile numbers may sign "
        "up by text message; an empty list or null restores the default, the country of the "
        "system's location.",
    )
    sms_confirmations_per_day = StrictIntegerField(
        required=False,
        min_value=0,
        max_value=limits.SMS_CONFIRMATIONS_PER_DAY_MAX,
        help_text="Confirmation text messages sent per day (UTC) at most to people signing "
        "up on the public map; 0 turns sign-up by text off.",
    )
    reports_per_day = StrictIntegerField(
        required=False,
        min_value=0,
        max_value=limits.REPORTS_PER_DAY_MAX,
        help_text="Problem reports riders may send per day (UTC) from the public map; past "
        "it the form is paused until the next day. 0 turns reports off.",
    )
    time_zone = TimeZoneField(required=False)
    groomers_live = StrictBooleanField(
        required=False,
        help_text="true: machines grooming now move on the public map and are listed in "
        "/feeds/<id>/groomers.json; false (the default): nothing about them is public.",
    )
    unconfirmed_after_hours = StrictIntegerField(
        required=False,
        allow_null=True,
        min_value=1,
        max_value=limits.UNCONFIRMED_AFTER_HOURS_MAX,
        help_text="A trail whose status nobody confirmed for this many hours shows as "
        "unconfirmed on the public map and the embeds; null (the default) turns it off.",
    )

    license_url = HttpUrlField(
        max_length=TEXT_LIMIT,
        required=False,
        allow_blank=True,
        help_text="An http(s) URL: the licence under which others may reuse the system's "
        "public data, stated by /feeds/<id>/index.json; empty (the default): the service's.",
    )
    attribution_name = SingleLineCharField(
        max_length=TEXT_LIMIT,
        required=False,
        allow_blank=True,
        help_text="Whom readers of the feeds must credit, such as the map data's source.",
    )
    attribution_url = HttpUrlField(
        max_length=TEXT_LIMIT,
        required=False,
        allow_blank=True,
        help_text="An http(s) URL: where the attribution points.",
    )

    def validate_sms_countries(self, codes: list[str] | None) -> list[str]:
        return codes or []


# Trails


class TrailSerializer(SystemRowSerializer):
    activities = serializers.SerializerMethodField()
    geolocation = GeolocationField()

    class Meta:
        model = Trail
        fields = (
            *SystemRowSerializer.ROW_FIELDS, *TRAIL.names(API), "activities", "distance",
            "geolocation",
            *SystemRowSerializer.AUDIT_FIELDS,
        )  # fmt: skip

    def get_activities(self, trail: Trail) -> list[dict]:
        return trail_activities(trail)


class TrailWithGeoJsonSerializer(TrailSerializer):
    geo_json = serializers.SerializerMethodField()

    class Meta(TrailSerializer.Meta):
        fields = (*TrailSerializer.Meta.fields, "geo_json")

    def get_geo_json(self, trail: Trail) -> dict:
        return feature_collection(trail.geometry)


class TrailFieldsSerializer(serializers.Serializer):
    """The editable trail fields, all optional (PATCH); creation requires some of them."""

    name = SingleLineCharField(max_length=200, required=False)
    description = StrictCharField(max_length=5000, required=False, allow_blank=True)
    status = serializers.ChoiceField(enums.TrailStatus.choices, required=False)
    difficulty = serializers.ChoiceField(enums.Difficulty.choices, required=False)
    type = serializers.ChoiceField(enums.TrailType.choices, required=False)
    line_style = serializers.ChoiceField(enums.LineStyle.choices, required=False)
    hidden = StrictBooleanField(required=False)
    one_way = StrictBooleanField(required=False)
    one_way_reversed = StrictBooleanField(required=False)
    order = StrictIntegerField(
        required=False, min_value=-limits.TRAIL_ORDER_MAX, max_value=limits.TRAIL_ORDER_MAX
    )
    categories = serializers.ListField(
        child=SingleLineCharField(max_length=limits.CATEGORY_LENGTH_MAX),
        required=False,
        max_length=limits.CATEGORIES_MAX,
    )


_POSITION = {
    "type": "array",
    "items": {"type": "number"},
    "minItems": 2,
    "maxItems": 3,
    "description": "[lng, lat] or [lng, lat, elevation in metres]",
}
_LINE = {
    "type": "array",
    "items": _POSITION,
    "minItems": 2,
    "maxItems": limits.GEOMETRY_POSITIONS_MAX,
}


def _geometry_schema(kind: str, coordinates: dict) -> dict:
    return {
        "type": "object",
        "properties": {"type": {"type": "string", "enum": [kind]}, "coordinates": coordinates},
        "required": ["type", "coordinates"],
    }


LINE_STRING_SCHEMA = _geometry_schema("LineString", _LINE)
LINE_GEOMETRY_SCHEMA = {
    "description": "A GeoJSON LineString or MultiLineString (see docs/developers/limits.md); "
    "each line holds at least two distinct positions, each [lng (-180 to 180), lat (-90 to "
    "90)] or [lng, lat, elevation in metres].",
    "oneOf": [
        LINE_STRING_SCHEMA,
        _geometry_schema(
            "MultiLineString",
            {
                "type": "array",
                "items": _LINE,
                "minItems": 1,
                "maxItems": limits.GEOMETRY_PARTS_MAX,
            },
        ),
    ],
}


@extend_schema_field(LINE_GEOMETRY_SCHEMA)
class GeometryField(serializers.JSONField):
    """A trail's geometry, checked by trails.geometry when it is applied; null is not one."""

    default_error_messages = {"null": "geometry must be a GeoJSON LineString or MultiLineString."}

    def validate_empty_values(self, data):
        if data is None:
            raise serializers.ValidationError(self.error_messages["null"], code="invalid_geometry")
        return super().validate_empty_values(data)


class TrailCreateSerializer(RequiredFieldsMixin, TrailFieldsSerializer):
    required_fields = ("name", "geometry")

    geometry = GeometryField(required=False)


class ActivityChangeSerializer(serializers.Serializer):
    value = StrictCharField()
    status = serializers.ChoiceField(enums.ActivityStatus.choices, required=False)
    difficulty = serializers.ChoiceField(enums.Difficulty.choices, required=False)


class TrailChangeSerializer(TrailFieldsSerializer):
    activities = serializers.ListField(
        child=ActivityChangeSerializer(), required=False, max_length=limits.ACTIVITY_CHANGES_MAX
    )


class TrailsStatusSerializer(serializers.Serializer):
    """POST /trail-systems/:id/trails/status."""

    status = serializers.ChoiceField(enums.TrailStatus.choices)
    trail_ids = serializers.ListField(
        child=StrictCharField(max_length=ID_MAX_LENGTH),
        required=False,
        allow_empty=False,
        min_length=1,
        max_length=limits.IDS_PER_REQUEST_MAX,
    )
    all = StrictBooleanField(required=False, default=False)

    def validate(self, attrs: dict) -> dict:
        if not attrs["all"] and "trail_ids" not in attrs:
            raise serializers.ValidationError(
                {"trail_ids": "Send trailIds or all: true."}, code="required"
            )
        return attrs


# Points


class PointSerializer(SystemRowSerializer):
    geolocation = GeolocationField()

    class Meta:
        model = Point
        fields = (
            *SystemRowSerializer.ROW_FIELDS, *POINT.names(API), "geolocation",
            *SystemRowSerializer.AUDIT_FIELDS,
        )  # fmt: skip


class PointFieldsSerializer(serializers.Serializer):
    """The editable point fields, all optional (PATCH); lat/lng may be latitude/longitude."""

    ALIASES = {"latitude": "lat", "longitude": "lng"}

    name = SingleLineCharField(max_length=200, required=False)
    marker_class = serializers.ChoiceField(enums.MarkerClass.choices, required=False)
    lat = StrictFloatField(
        min_value=-limits.LATITUDE_MAX, max_value=limits.LATITUDE_MAX, required=False
    )
    lng = StrictFloatField(
        min_value=-limits.LONGITUDE_MAX, max_value=limits.LONGITUDE_MAX, required=False
    )
    description = StrictCharField(required=False, allow_blank=True)
    status = serializers.ChoiceField(enums.PointStatus.choices, required=False)
    hidden = StrictBooleanField(required=False)
    wait_time = StrictIntegerField(
        min_value=0, max_value=limits.WAIT_TIME_MAX, required=False, allow_null=True
    )
    web_cam_url = HttpUrlField(max_length=TEXT_LIMIT, required=False, allow_blank=True)

    def to_internal_value(self, data):
        if isinstance(data, dict):
            data = {**{self.ALIASES[k]: v for k, v in data.items() if k in self.ALIASES}, **data}
        return super().to_internal_value(data)

    def validate(self, attrs: dict) -> dict:
        if ("lat" in attrs) != ("lng" in attrs):
            missing = "lng" if "lat" in attrs else "lat"
            raise serializers.ValidationError(
                {missing: "lat and lng move the point together; send both."}, code="required"
            )
        return attrs


class PointCreateSerializer(RequiredFieldsMixin, PointFieldsSerializer):
    required_fields = ("name", "marker_class", "lat", "lng")


class HistoryQuerySerializer(serializers.Serializer):
    limit = serializers.IntegerField(min_value=1, max_value=HISTORY_LIMIT, default=100)


def _status_change_shown(serializer, instance) -> dict:
    shown = serializers.Serializer.to_representation(serializer, instance)
    shown["activity"] = shown["activity"] or None  # null where no activity applies
    return shown


# One entry of GET /trails/:id/history and /points/:id/history; built with type() because
# one of its fields is named `from`.
StatusChangeSerializer = type(
    "StatusChangeSerializer",
    (serializers.Serializer,),
    {
        "at": JsDateTimeField(read_only=True),
        "uid": serializers.CharField(read_only=True),
        "via": serializers.ChoiceField(Via.choices, read_only=True),
        "field": serializers.CharField(read_only=True),
        "activity": serializers.CharField(read_only=True, allow_null=True),
        "from": serializers.JSONField(read_only=True, source="old_value", allow_null=True),
        "to": serializers.JSONField(read_only=True, source="new_value", allow_null=True),
        "to_representation": _status_change_shown,
    },
)
