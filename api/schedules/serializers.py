"""JSON shapes of scheduled status changes (/trail-systems/:id/schedules).

Times are wall-clock times in the system's time zone (its `timeZone`), written without a zone:
a one-off schedule's `startsAt`/`endsAt` as YYYY-MM-DDTHH:MM, a daily one's
`startTime`/`endTime` as HH:MM (seconds may follow). Instants the service computes from them
(`nextChange.at`) are ISO 8601 in UTC, as every other date of the interface."""

import re
from datetime import date, datetime, time

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api.fields import JsDateTimeField, StrictCharField
from core import limits
from core.ids import ID_MAX_LENGTH
from schedules.models import Action, Repeat, Schedule
from trails import enums

# Only dates and times that exist (years 0001-9999, 29 February of leap years), so a client
# generating values from the schema sends none the parser refuses.
_MONTH_DAY = (
    r"(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\d|3[01])"
    r"|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)|02-(?:0[1-9]|1\d|2[0-8]))"
)
_LEAP_YEAR = r"(?:\d\d(?:0[48]|[2468][048]|[13579][26])|(?:0[48]|[2468][048]|[13579][26])00)"
_DATE = rf"(?:(?!0000)\d{{4}}-{_MONTH_DAY}|{_LEAP_YEAR}-02-29)"
_TIME = r"(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d)?"
LOCAL_DATE_TIME = rf"^{_DATE}T{_TIME}$"
LOCAL_TIME = rf"^{_TIME}$"
LOCAL_DATE = rf"^{_DATE}$"
REASON_MAX = Schedule._meta.get_field("reason").max_length


class LocalField(serializers.Field):
    """A wall-clock value in the system's zone, as a string without a zone; null clears it
    where the field may be cleared."""

    pattern: str
    parse: staticmethod
    example: str
    default_error_messages = {
        "invalid": "must be a string.",
        "invalid_date": "must be {example} (a local time in the system's zone, without a zone).",
    }

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        extend_schema_field(
            {
                "type": "string",
                "pattern": cls.pattern,
                "description": "Local to the trail system's timeZone, without a zone.",
            }
        )(cls)

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        if not re.match(self.pattern, data):
            self.fail("invalid_date", example=self.example)
        try:
            return self.parse(data)
        except ValueError:
            self.fail("invalid_date", example=self.example)

    def to_representation(self, value) -> str:
        if isinstance(value, datetime | time):
            return value.isoformat(timespec="minutes" if value.second == 0 else "seconds")
        return value.isoformat()


class LocalDateTimeField(LocalField):
    pattern = LOCAL_DATE_TIME
    parse = staticmethod(datetime.fromisoformat)
    example = "2026-12-19T16:00"


class LocalTimeField(LocalField):
    pattern = LOCAL_TIME
    parse = staticmethod(time.fromisoformat)
    example = "21:00"


class LocalDateField(LocalField):
    pattern = LOCAL_DATE
    parse = staticmethod(date.fromisoformat)
    example = "2026-12-01"


class ScheduleFieldsSerializer(serializers.Serializer):
    """The body of POST (startsAt or startTime by repeat, trailIds, status and repeat
    required) and of PATCH (any of them). A one-off schedule takes startsAt and endsAt, a
    daily one startTime, endTime, firstDate and lastDate; an end is optional and endStatus,
    without which the end puts back what the start changed, needs one."""

    trail_ids = serializers.ListField(
        child=StrictCharField(max_length=ID_MAX_LENGTH),
        min_length=1,
        max_length=limits.IDS_PER_REQUEST_MAX,
        required=False,
        help_text="Trails of this system; a PATCH replaces the list.",
    )
    activity = StrictCharField(
        max_length=40,
        required=False,
        allow_null=True,
        allow_blank=True,
        help_text="Change this activity on each trail instead of the trail (every trail has it).",
    )
    status = serializers.ChoiceField(
        enums.TrailStatus.choices, required=False, help_text="Set at the start."
    )
    end_status = serializers.ChoiceField(
        enums.TrailStatus.choices,
        required=False,
        allow_null=True,
        help_text="Set at the end; null: back to what the start changed, unless changed since.",
    )
    repeat = serializers.ChoiceField(Repeat.choices, required=False)
    starts_at = LocalDateTimeField(required=False, help_text="repeat once: in the future.")
    ends_at = LocalDateTimeField(required=False, allow_null=True, help_text="after startsAt")
    start_time = LocalTimeField(required=False, help_text="repeat daily")
    end_time = LocalTimeField(
        required=False, allow_null=True, help_text="repeat daily; before startTime: next day"
    )
    first_date = LocalDateField(required=False, allow_null=True, help_text="repeat daily")
    last_date = LocalDateField(required=False, allow_null=True, help_text="repeat daily")
    reason = StrictCharField(
        max_length=REASON_MAX,
        required=False,
        allow_blank=True,
        help_text="Shown on the public map and in the calendar feed.",
    )

    def to_internal_value(self, data) -> dict:
        values = super().to_internal_value(data)
        for name in ("activity", "end_status"):
            if name in values and values[name] is None:
                values[name] = ""
        return values


class ScheduleCreateSerializer(ScheduleFieldsSerializer):
    def get_fields(self) -> dict:
        fields = super().get_fields()
        for name in ("trail_ids", "status", "repeat"):
            fields[name].required = True
        return fields


class NextChangeSerializer(serializers.Serializer):
    at = JsDateTimeField(source="due_at")
    action = serializers.ChoiceField(Action.choices)
    status = serializers.CharField(
        allow_null=True, help_text="null: back to what the start changed"
    )


class ScheduleSerializer(serializers.Serializer):
    """A schedule as stored, with its zone and state (schedules.selectors.with_states)."""

    id = serializers.CharField()
    trail_system_id = serializers.CharField()
    trail_ids = serializers.SerializerMethodField()
    activity = serializers.SerializerMethodField()
    status = serializers.ChoiceField(enums.TrailStatus.choices)
    end_status = serializers.SerializerMethodField()
    repeat = serializers.ChoiceField(Repeat.choices)
    starts_at = serializers.SerializerMethodField()
    ends_at = serializers.SerializerMethodField()
    start_time = serializers.SerializerMethodField()
    end_time = serializers.SerializerMethodField()
    first_date = LocalDateField(allow_null=True)
    last_date = LocalDateField(allow_null=True)
    reason = serializers.CharField()
    time_zone = serializers.SerializerMethodField()
    in_effect = serializers.SerializerMethodField()
    next_change = serializers.SerializerMethodField()
    finished = serializers.SerializerMethodField()
    created_on = JsDateTimeField()
    created_by = serializers.CharField()
    updated_on = JsDateTimeField()
    updated_by = serializers.CharField()

    def get_trail_ids(self, schedule) -> list[str]:
        return [trail.pk for trail in schedule.shown_trails]

    def get_activity(self, schedule) -> str | None:
        return schedule.activity or None

    @extend_schema_field(
        {"type": "string", "enum": [*enums.TrailStatus.values, None], "nullable": True}
    )
    def get_end_status(self, schedule):
        return schedule.end_status or None

    @extend_schema_field({"type": "string", "pattern": LOCAL_DATE_TIME, "nullable": True})
    def get_starts_at(self, schedule):
        return _local_date_time(schedule, schedule.start_date, schedule.start_time)

    @extend_schema_field({"type": "string", "pattern": LOCAL_DATE_TIME, "nullable": True})
    def get_ends_at(self, schedule):
        return _local_date_time(schedule, schedule.end_date, schedule.end_time)

    @extend_schema_field({"type": "string", "pattern": LOCAL_TIME, "nullable": True})
    def get_start_time(self, schedule):
        return _local_time(schedule, schedule.start_time)

    @extend_schema_field({"type": "string", "pattern": LOCAL_TIME, "nullable": True})
    def get_end_time(self, schedule):
        return _local_time(schedule, schedule.end_time)

    def get_time_zone(self, schedule) -> str:
        return schedule.state.zone.key

    def get_in_effect(self, schedule) -> bool:
        return schedule.state.in_effect

    @extend_schema_field(NextChangeSerializer(allow_null=True))
    def get_next_change(self, schedule):
        occurrence = schedule.state.next
        if occurrence is None:
            return None
        status = schedule.status if occurrence.action == Action.START else schedule.end_status
        return NextChangeSerializer(
            {"due_at": occurrence.due_at, "action": occurrence.action, "status": status or None}
        ).data

    def get_finished(self, schedule) -> bool:
        return schedule.finished_on is not None


def _local_date_time(schedule, day: date | None, at: time | None) -> str | None:
    if schedule.repeat != Repeat.ONCE or day is None or at is None:
        return None
    return LocalDateTimeField().to_representation(datetime.combine(day, at))


def _local_time(schedule, at: time | None) -> str | None:
    if schedule.repeat != Repeat.DAILY or at is None:
        return None
    return LocalTimeField().to_representation(at)
