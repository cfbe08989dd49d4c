"""JSON shapes of grooming: the upload's options, its answer, and the last-groomed read."""

from rest_framework import serializers

from api.fields import JsDateTimeField, StrictBooleanField, StrictCharField, StrictFloatField
from grooming.selectors import groomed_on_day


class GroomingOptionsSerializer(serializers.Serializer):
    """Options as query parameters (strings: "20", "true"). Types only: the ranges and the
    surface-conditions values are the service's rules, the command's too."""

    tolerance_meters = serializers.FloatField(required=False)
    groomed_at = JsDateTimeField(required=False)
    condition = serializers.CharField(required=False)
    dry_run = serializers.BooleanField(required=False)


class GroomingJsonOptionsSerializer(GroomingOptionsSerializer):
    """The same options as top-level members of a GeoJSON body, typed strictly as JSON."""

    tolerance_meters = StrictFloatField(required=False)
    condition = StrictCharField(required=False)
    dry_run = StrictBooleanField(required=False)


class CoveredTrailSerializer(serializers.Serializer):
    trail_id = serializers.CharField()
    name = serializers.CharField()
    coverage = serializers.FloatField(help_text="Fraction of the trail's length, 0 to 1.")


class GroomingResultSerializer(serializers.Serializer):
    """The shape of GroomingResult.document(), for the OpenAPI schema."""

    track_id = serializers.CharField(allow_null=True, help_text="null on a dry run")
    groomed_at = JsDateTimeField()
    trails = CoveredTrailSerializer(many=True, help_text="Groomed trails, by coverage.")
    update_ids = serializers.ListField(child=serializers.CharField())


class LastGroomedSerializer(serializers.Serializer):
    trail_id = serializers.CharField()
    name = serializers.CharField()
    last_groomed_on = JsDateTimeField()
    condition = serializers.CharField()
    last_groomed = JsDateTimeField(
        source="last_groomed_on", help_text="The same time, under MtnManager's read API's name."
    )
    groomed_today = serializers.SerializerMethodField(
        help_text="Last groomed on today's date in the trail system's time zone."
    )

    def get_groomed_today(self, entry) -> bool:
        return groomed_on_day(entry.last_groomed_on, self.context["zone"])


class GroomingPassSerializer(serializers.Serializer):
    track_id = serializers.CharField(source="pk")
    groomed_at = JsDateTimeField()
    uid = serializers.CharField()
    trail_count = serializers.IntegerField()


class GroomingSerializer(serializers.Serializer):
    trail_system_id = serializers.CharField()
    trails = LastGroomedSerializer(many=True)
    tracks = GroomingPassSerializer(many=True)
