"""OpenAPI shapes of the grooming log (the views answer grooming.log's documents, already in
the interface's names) and the approval's bodies."""

from rest_framework import serializers

from api.fields import StrictCharField


class LogTrailSerializer(serializers.Serializer):
    trail_id = serializers.CharField()
    name = serializers.CharField()
    passes = serializers.IntegerField()
    groomed_meters = serializers.FloatField(
        help_text="The trail's length times the share of it this session covered."
    )
    length_meters = serializers.FloatField()
    condition = serializers.CharField()


class LogSessionSerializer(serializers.Serializer):
    id = serializers.CharField(help_text="The grooming pass (trackId) of the session.")
    machine = serializers.CharField(
        help_text="The tracker's name, or the operator who uploaded the track."
    )
    machine_id = serializers.CharField()
    source = serializers.ChoiceField(choices=["tracker", "upload"])
    day = serializers.DateField(help_text="The day it started, in the system's time zone.")
    started_at = serializers.DateTimeField(allow_null=True)
    ended_at = serializers.DateTimeField(allow_null=True)
    hours = serializers.FloatField(
        allow_null=True,
        help_text="From the first to the last position, pauses over 15 minutes left out; "
        "null for a track recorded without times.",
    )
    pauses_left_out = serializers.IntegerField()
    paused_hours = serializers.FloatField(allow_null=True)
    driven_meters = serializers.FloatField()
    groomed_meters = serializers.FloatField()
    condition = serializers.CharField()
    running = serializers.BooleanField(help_text="Still grooming: the figures are not final.")
    after_approval = serializers.BooleanField(
        help_text="Saved into an approved period after its approval: in no total."
    )
    trails = LogTrailSerializer(many=True)


class LogTotalSerializer(serializers.Serializer):
    sessions = serializers.IntegerField()
    hours = serializers.FloatField()
    driven_meters = serializers.FloatField()
    groomed_meters = serializers.FloatField()


class LogMachineTotalSerializer(LogTotalSerializer):
    machine_id = serializers.CharField()
    machine = serializers.CharField()


class LogTrailTotalSerializer(serializers.Serializer):
    trail_id = serializers.CharField()
    name = serializers.CharField()
    length_meters = serializers.FloatField()
    passes = serializers.IntegerField()
    groomed_meters = serializers.FloatField()


class LogTotalsSerializer(LogTotalSerializer):
    machines = LogMachineTotalSerializer(many=True)
    trails = LogTrailTotalSerializer(many=True)


class ApprovalSerializer(serializers.Serializer):
    id = serializers.CharField()
    approved_by = serializers.CharField()
    approved_at = serializers.DateTimeField()
    reopened_by = serializers.CharField(allow_null=True)
    reopened_at = serializers.DateTimeField(allow_null=True)
    reopen_reason = serializers.CharField(allow_null=True)

    def get_fields(self):
        """`from` and `to` are Python keywords: added by name."""
        return {
            "from": serializers.DateField(),
            "to": serializers.DateField(),
            **super().get_fields(),
        }


class GroomingLogSerializer(serializers.Serializer):
    trail_system_id = serializers.CharField()
    time_zone = serializers.CharField()
    sessions = LogSessionSerializer(many=True)
    totals = LogTotalsSerializer()
    approval = ApprovalSerializer(allow_null=True, help_text="The approval in force, if any.")
    approvals = ApprovalSerializer(
        many=True, help_text="Every approval touching the period, reopened ones too."
    )

    def get_fields(self):
        return {
            "from": serializers.DateField(),
            "to": serializers.DateField(),
            **super().get_fields(),
        }


class PeriodSerializer(serializers.Serializer):
    """Two days, YYYY-MM-DD (checked by the log's own rule, which names the field)."""

    def get_fields(self):
        return {
            "from": StrictCharField(help_text="YYYY-MM-DD, not after `to`"),
            "to": StrictCharField(help_text="YYYY-MM-DD; at most 400 days after `from`"),
        }


class ReopenSerializer(serializers.Serializer):
    reason = StrictCharField(max_length=500)
