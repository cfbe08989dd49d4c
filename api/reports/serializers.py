"""JSON shapes of rider reports (reports/): what a manager reads and what a triage sends."""

from django.urls import reverse
from rest_framework import serializers

from api.fields import JsDateTimeField, StrictCharField
from reports.models import Category, Report, State
from reports.services import NOTE_MAX


class ReportChangeSerializer(serializers.Serializer):
    """The PATCH body: what the crew decided, and a note (sent to the reporters on resolve)."""

    state = serializers.ChoiceField(choices=State.values, required=False)
    note = StrictCharField(
        required=False,
        allow_blank=True,
        max_length=NOTE_MAX,
        trim_whitespace=False,
        help_text="The crew's note; resolving sends it to each reporter who left an address.",
    )


class ReportSerializer(serializers.ModelSerializer):
    """A report (the first of its group, with the group's count). `email` is in the body
    for Administrators only (ReportSerializer's `with_email` context)."""

    trail_system_id = serializers.CharField()
    category = serializers.ChoiceField(choices=Category.values)
    state = serializers.ChoiceField(choices=State.values)
    trail_id = serializers.CharField(
        allow_null=True, help_text="The live trail nearest to the report when it was filed."
    )
    trail_name = serializers.SerializerMethodField()
    trail_distance_km = serializers.FloatField(allow_null=True)
    photo_url = serializers.SerializerMethodField(
        help_text="The photo (JPEG, metadata removed), for the same credentials as this list; "
        "null without one."
    )
    email = serializers.CharField(
        required=False,
        help_text="The reporter's address (Administrators only; absent for other roles).",
    )
    created_on = JsDateTimeField()
    last_reported_on = JsDateTimeField()
    updated_on = JsDateTimeField()

    class Meta:
        model = Report
        fields = [
            "id", "trail_system_id", "category", "description", "lat", "lng", "trail_id",
            "trail_name", "trail_distance_km", "photo_url", "email", "state", "note", "count",
            "created_on", "last_reported_on", "updated_on", "updated_by",
        ]  # fmt: skip
        read_only_fields = fields

    def get_trail_name(self, report: Report) -> str | None:
        return report.trail.name if report.trail_id else None

    def get_photo_url(self, report: Report) -> str | None:
        if not report.photo:
            return None
        path = reverse("api-report-photo", args=[report.pk])
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request else path

    def to_representation(self, report: Report) -> dict:
        data = super().to_representation(report)
        if not self.context.get("with_email"):
            data.pop("email", None)
        return data
