"""JSON shapes of updates: the common fields, each type's own fields, no template metadata."""

import re
from itertools import chain

from django.core.validators import RegexValidator
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api.fields import (
    HttpUrlField,
    JsDateTimeField,
    StrictBooleanField,
    StrictCharField,
    StrictFloatField,
)
from api.trails.serializers import SystemRowSerializer, trail_activities
from core import limits
from core.ids import ID_MAX_LENGTH
from core.limits import TEXT_LIMIT
from trails.models import Trail
from trails.selectors import trails_of_system
from updates import enums
from updates.models import Update
from updates.types import SNOW_DATES, SNOW_DEPTHS, TYPE_FIELDS, UPDATE_TYPES, in_language

ALL_TYPE_FIELDS = frozenset(chain.from_iterable(TYPE_FIELDS.values()))


@extend_schema_field(
    {
        "type": "number",
        "minimum": 0,
        "exclusiveMinimum": True,
        "maximum": limits.EXPIRES_IN_HOURS_MAX,
    }
)
class ExpiresInHoursField(StrictFloatField):
    """Hours from now, fractional; greater than 0 (the schema says so too)."""

    def __init__(self, **kwargs):
        super().__init__(max_value=limits.EXPIRES_IN_HOURS_MAX, **kwargs)

    def to_internal_value(self, data) -> float:
        hours = super().to_internal_value(data)
        if hours <= 0:
            raise serializers.ValidationError("must be greater than 0.", code="invalid")
        return hours


class UpdateSerializer(SystemRowSerializer):
    label = serializers.SerializerMethodField()
    attach_to_trails = serializers.SerializerMethodField()
    relevant_trails = serializers.SerializerMethodField()
    trail_ids = serializers.SerializerMethodField()

    class Meta:
        model = Update
        fields = (
            *SystemRowSerializer.ROW_FIELDS, "type", "label", "attach_to_trails",
            "expiration_date", "notify", "relevant_trails", "trail_ids", "source",
            *SystemRowSerializer.AUDIT_FIELDS, *chain.from_iterable(TYPE_FIELDS.values()),
        )  # fmt: skip

    def to_representation(self, update: Update) -> dict:
        data = super().to_representation(update)
        for name in ALL_TYPE_FIELDS - set(TYPE_FIELDS.get(update.type, ())):
            del data[name]
        return data

    def get_label(self, update: Update) -> str:
        template = UPDATE_TYPES.get(update.type)
        if template is None:
            return update.type
        return in_language(template.label, update.trail_system.language)

    def get_attach_to_trails(self, update: Update) -> bool:
        template = UPDATE_TYPES.get(update.type)
        return template.attach_to_trails if template else False

    def related_trails(self, update: Update) -> list[Trail]:
        """The trails named, or every live trail of the system when allTrails is set."""
        if not update.all_trails:
            return list(update.trails.all())
        cache = self.context.setdefault("trails_of_system", {})
        if update.trail_system_id not in cache:
            cache[update.trail_system_id] = list(trails_of_system(update.trail_system))
        return cache[update.trail_system_id]

    def get_relevant_trails(self, update: Update) -> list[dict]:
        return [
            {
                "trail_id": trail.pk,
                "name": trail.name,
                "status": trail.status,
                "difficulty": trail.difficulty,
                "activities": trail_activities(trail),
                "categories": trail.categories,
            }
            for trail in self.related_trails(update)
        ]

    def get_trail_ids(self, update: Update) -> list[str]:
        return [trail.pk for trail in self.related_trails(update)]


class UpdateFieldsSerializer(serializers.Serializer):
    """The editable fields of every type, all optional (PATCH); create adds type."""

    expiration_date = JsDateTimeField(required=False)
    expires_in_hours = ExpiresInHoursField(required=False)
    notify = StrictBooleanField(required=False)
    trail_ids = serializers.ListField(
        child=StrictCharField(max_length=ID_MAX_LENGTH),
        required=False,
        max_length=limits.IDS_PER_REQUEST_MAX,
    )
    all_trails = StrictBooleanField(required=False)
    # The spec sets no limit; 5000 characters, like a trail description, keeps messages sane.
    description = StrictCharField(max_length=5000, required=False)
    severity = serializers.ChoiceField(enums.NoticeSeverity.choices, required=False)
    link_url = HttpUrlField(max_length=TEXT_LIMIT, required=False, allow_blank=True)
    conditions = serializers.ListField(
        child=serializers.ChoiceField(enums.SURFACE_CONDITIONS),
        required=False,
        allow_empty=False,
        min_length=1,
        max_length=len(enums.SURFACE_CONDITIONS),
    )
    last_snow_time = StrictCharField(
        required=False,
        allow_blank=True,
        validators=[
            RegexValidator(re.compile(r"^([01]\d|2[0-3]):[0-5]\d$"), "Use HH:MM, 24-hour.")
        ],
    )

    def get_fields(self) -> dict:
        fields = super().get_fields()
        for name in SNOW_DEPTHS:
            fields[name] = StrictFloatField(
                required=False, allow_null=True, min_value=0, max_value=limits.SNOW_DEPTH_MAX
            )
        for name in SNOW_DATES:
            fields[name] = JsDateTimeField(required=False, allow_null=True)
        return fields

    def validate(self, attrs: dict) -> dict:
        if "expiration_date" in attrs and "expires_in_hours" in attrs:
            raise serializers.ValidationError(
                {"expires_in_hours": "Send expirationDate or expiresInHours, not both."}
            )
        return attrs


class UpdateCreateSerializer(UpdateFieldsSerializer):
    type = serializers.ChoiceField(enums.UpdateType.choices)
