"""JSON shapes of closures (/trails/:id/closures, /trail-systems/:id/closures, /closures/:id).

An end of the stretch is a place, `from`/`to` ({lat, lng}, snapped onto the trail's line when
within 50 m of it), or a distance along the line, `fromMeters`/`toMeters`; neither end given:
the whole trail."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api.fields import JsDateTimeField, StrictCharField, StrictFloatField
from api.trails.serializers import LINE_STRING_SCHEMA
from closures.models import NOTE_MAX
from closures.reasons import Reason
from closures.services import Place
from core import limits

ACTIVITY_MAX = 40


class PlaceSerializer(serializers.Serializer):
    lat = StrictFloatField(min_value=-limits.LATITUDE_MAX, max_value=limits.LATITUDE_MAX)
    lng = StrictFloatField(min_value=-limits.LONGITUDE_MAX, max_value=limits.LONGITUDE_MAX)

    def to_internal_value(self, data) -> Place:
        return Place(**super().to_internal_value(data))


@extend_schema_field(
    {
        **LINE_STRING_SCHEMA,
        "nullable": True,
        "description": "A GeoJSON LineString of at least two distinct positions, each [lng "
        "(-180 to 180), lat (-90 to 90)] or [lng, lat, elevation in metres]; or null.",
    }
)
class DetourGeometryField(serializers.JSONField):
    """The detour's line, checked by the service (trails.geometry)."""


class ClosureFieldsSerializer(serializers.Serializer):
    """The body of PATCH (any field) and, with `reason` required, of POST. `from` and `to`
    are Python words, so those two fields are added by name."""

    from_meters = StrictFloatField(required=False, min_value=0, help_text="Metres along the line")
    to_meters = StrictFloatField(required=False, min_value=0, help_text="Metres along the line")
    activities = serializers.ListField(
        child=StrictCharField(max_length=ACTIVITY_MAX),
        required=False,
        max_length=limits.ACTIVITY_CHANGES_MAX,
        help_text="Activity keys of the trail; omitted or empty: all of them.",
    )
    reason = serializers.ChoiceField(Reason.choices, required=False)
    note = StrictCharField(max_length=NOTE_MAX, required=False, allow_blank=True)
    starts_at = JsDateTimeField(required=False, allow_null=True, help_text="Omitted: now.")
    ends_at = JsDateTimeField(
        required=False, allow_null=True, help_text="After startsAt; omitted or null: none."
    )
    detour = StrictCharField(max_length=NOTE_MAX, required=False, allow_blank=True)
    detour_geometry = DetourGeometryField(required=False, allow_null=True)

    def get_fields(self) -> dict:
        fields = super().get_fields()
        fields["from"] = PlaceSerializer(required=False, help_text="Snapped onto the trail")
        fields["to"] = PlaceSerializer(required=False, help_text="Snapped onto the trail")
        return fields

    def validate(self, data: dict) -> dict:
        """The service's names: an end is `start` or `end`, a place or metres."""
        for place, metres, end in (("from", "from_meters", "start"), ("to", "to_meters", "end")):
            if place in data and metres in data:
                raise serializers.ValidationError(
                    {metres: f"give {place} or {metres.replace('_m', 'M')}, not both."}
                )
            if place in data or metres in data:
                data[end] = data.pop(place, None) or data.pop(metres)
        return data


class ClosureCreateSerializer(ClosureFieldsSerializer):
    def get_fields(self) -> dict:
        fields = super().get_fields()
        fields["reason"].required = True
        return fields


class ClosureSerializer(serializers.Serializer):
    """A closure with its stretch on the trail's current line (closures.selectors)."""

    id = serializers.CharField()
    trail_system_id = serializers.CharField()
    trail_id = serializers.CharField()
    trail_name = serializers.CharField(source="trail.name")
    activities = serializers.ListField(child=serializers.CharField())
    reason = serializers.ChoiceField(Reason.choices)
    note = serializers.CharField()
    starts_at = JsDateTimeField()
    ends_at = JsDateTimeField(allow_null=True)
    detour = serializers.CharField()
    detour_geometry = serializers.JSONField(allow_null=True)
    geometry = serializers.JSONField(source="stretch.geometry", help_text="The closed stretch")
    from_meters = serializers.FloatField(source="stretch.from_meters")
    to_meters = serializers.FloatField(source="stretch.to_meters")
    length_meters = serializers.FloatField(source="stretch.length_meters")
    whole_trail = serializers.BooleanField()
    active = serializers.BooleanField(help_text="In effect now")
    ended_on = JsDateTimeField(allow_null=True, help_text="When it was reopened or ended")
    created_on = JsDateTimeField()
    created_by = serializers.CharField()
    updated_on = JsDateTimeField()
    updated_by = serializers.CharField()

    def to_representation(self, instance) -> dict:
        data = super().to_representation(instance)
        for name in ("from_meters", "to_meters", "length_meters"):
            data[name] = round(data[name], 1)
        return data
