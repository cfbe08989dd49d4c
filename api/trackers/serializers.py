"""JSON shapes of trackers: what comes in, what goes out (never the secret but once)."""

from rest_framework import serializers

from api.fields import JsDateTimeField, SingleLineCharField
from grooming.models import Tracker
from grooming.trackers import NAME_MAX_LENGTH
from updates.enums import SURFACE_CONDITIONS


class TrackerCreateSerializer(serializers.Serializer):
    name = SingleLineCharField(
        max_length=NAME_MAX_LENGTH, help_text="The groomer or the machine, as managers know it."
    )
    condition = serializers.ChoiceField(
        SURFACE_CONDITIONS,
        required=False,
        help_text="The surface condition posted on the trails it grooms; default groomed.",
    )


class TrackerSerializer(serializers.ModelSerializer):
    """A tracker without its secret."""

    trail_system_id = serializers.CharField()
    created_on = JsDateTimeField()
    last_position_on = JsDateTimeField(
        allow_null=True, help_text="When its latest accepted position arrived; null: never."
    )
    dropped_positions = serializers.IntegerField(
        help_text="Positions refused as implausible: from the future, from before the tracker "
        "was made or its last session ended, far outside the system, less accurate than 50 m, "
        "less than a second after the previous one, or farther from it than a groomer drives."
    )
    grooming_now = serializers.BooleanField(help_text="A grooming session is running.")

    class Meta:
        model = Tracker
        fields = [
            "id", "trail_system_id", "name", "condition", "prefix", "created_on", "created_by",
            "last_position_on", "dropped_positions", "grooming_now",
        ]  # fmt: skip
        read_only_fields = fields


class UrlTemplatesSerializer(serializers.Serializer):
    osmand = serializers.CharField(help_text="OsmAnd's online tracking web address.")
    gpslogger = serializers.CharField(help_text="GPSLogger's custom URL (GET).")


class TrackerWithSecretSerializer(TrackerSerializer):
    """The creation's answer: the secret and the addresses to paste, shown once."""

    secret = serializers.CharField(help_text="The tracker's secret; it cannot be shown again.")
    tracking_url = serializers.CharField(
        help_text="Traccar Client's server URL (or OsmAnd's address, with the secret as id)."
    )
    url_templates = UrlTemplatesSerializer()
    owntracks_url = serializers.CharField(
        help_text="OwnTracks' HTTP URL; the secret is the password (any user name)."
    )

    class Meta(TrackerSerializer.Meta):
        fields = [
            *TrackerSerializer.Meta.fields, "secret", "tracking_url", "url_templates",
            "owntracks_url",
        ]  # fmt: skip
        read_only_fields = fields
