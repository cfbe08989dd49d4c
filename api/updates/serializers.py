"""JSON shapes of updates: the common fields, each type's own fields, no template metadata."""

import re
from itertools import chain

from django.core.validators import RegexValidator
from rest_framework import serializers

from api.fields import (
    JsDateTimeField,
    StrictBooleanField,
    StrictCharField,
    StrictFloatField,
)
from api.trails.serializers import SystemRowSerializer, trail_activities
from core.limits import TEXT_LIMIT
from trails.models import Trail
from trails.selectors import trails_of_system
from updates import enums
from updates.models import Update
from updates.types import SNOW_DATES, SNOW_DEPTHS, TYPE_FIELDS, UPDATE_TYPES

MAX_EXPIRES_IN_HOURS = 8760
ALL_TYPE_FIELDS = frozenset(chain.from_iterable(TYPE_FIELDS.values()))


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
        return template.label.get(update.trail_system.language) if template else update.type

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
    expires_in_hours = StrictFloatField(required=False)
    notify = StrictBooleanField(required=False)
    trail_ids = serializers.ListField(child=StrictCharField(), required=False)
    all_trails = StrictBooleanField(required=False)
    # The spec sets no limit; 5000 characters, like a trail description, keeps messages sane.
    description = StrictCharField(max_length=5000, required=False)
    severity = serializers.ChoiceField(enums.NoticeSeverity.choices, required=False)
    link_url = StrictCharField(max_length=TEXT_LIMIT, required=False, allow_blank=True)
    conditions = serializers.ListField(
        child=serializers.ChoiceField(enums.SURFACE_CONDITIONS), required=False, allow_empty=False
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
            fields[name] = StrictFloatField(required=False, allow_null=True, min_value=0)
        for name in SNOW_DATES:
            fields[name] = JsDateTimeField(required=False, allow_null=True)
        return fields

    def validate_expires_in_hours(self, hours: float) -> float:
        if not 0 < hours <= MAX_EXPIRES_IN_HOURS:
            raise serializers.ValidationError(
                f"must be greater than 0 and at most {MAX_EXPIRES_IN_HOURS}."
            )
        return hours

    def validate(self, attrs: dict) -> dict:
        if "expiration_date" in attrs and "expires_in_hours" in attrs:
            raise serializers.ValidationError(
                {"expires_in_hours": "Send expirationDate or expiresInHours, not both."}
            )
        return attrs


class UpdateCreateSerializer(UpdateFieldsSerializer):
    type = serializers.ChoiceField(enums.UpdateType.choices)
