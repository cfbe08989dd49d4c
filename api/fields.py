"""DRF fields of the management interface: JavaScript-style dates in, ISO dates with
milliseconds out, and JSON types checked strictly (a string is not a number, 1 is not true)."""

from datetime import datetime

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from core.dates import iso_ms
from core.jsdate import DateOutOfRange, InvalidDate, parse_js_date
from core.limits import YEAR_MAX, YEAR_MIN
from core.links import HTTP_URL_PATTERN, is_http_url
from core.text import SINGLE_LINE_PATTERN, SINGLE_LINE_RULE, is_single_line


@extend_schema_field(OpenApiTypes.DATETIME)
class JsDateTimeField(serializers.Field):
    """In: any string JavaScript's Date reads (zone-less means UTC). Out: ISO 8601 with ms, Z."""

    default_error_messages = {
        "invalid_date": "is not a date JavaScript's Date can read.",
        "invalid": "must be a date string.",
        "out_of_range": f"must be between the years {YEAR_MIN:04d} and {YEAR_MAX} (UTC).",
    }

    def to_internal_value(self, data) -> datetime:
        if not isinstance(data, str):
            self.fail("invalid")
        try:
            return parse_js_date(data)
        except DateOutOfRange:
            self.fail("out_of_range")
        except InvalidDate:
            self.fail("invalid_date")

    def to_representation(self, value: datetime) -> str | None:
        return iso_ms(value)


class StrictCharField(serializers.CharField):
    """A JSON string; numbers and booleans are refused rather than turned into text."""

    def to_internal_value(self, data) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


@extend_schema_field({"type": "string", "pattern": SINGLE_LINE_PATTERN})
class SingleLineCharField(StrictCharField):
    """A name (core.text): a line break, a tab or another control character is refused."""

    default_error_messages = {"single_line": f"must be {SINGLE_LINE_RULE}."}

    def to_internal_value(self, data) -> str:
        text = super().to_internal_value(data)
        if not is_single_line(text):
            self.fail("single_line")
        return text


@extend_schema_field({"type": "string", "pattern": HTTP_URL_PATTERN})
class HttpUrlField(StrictCharField):
    """A link shown to people (e-mail, embeds): http or https only, never javascript: or data:.
    The empty string clears it."""

    default_error_messages = {"scheme": "must be an http:// or https:// URL."}

    def to_internal_value(self, data) -> str:
        url = super().to_internal_value(data)
        if url and not is_http_url(url):
            self.fail("scheme")
        return url


class StrictBooleanField(serializers.BooleanField):
    """JSON true or false only."""

    def to_internal_value(self, data) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


class StrictIntegerField(serializers.IntegerField):
    """A JSON integer (2.0 counts); strings and booleans are refused."""

    def to_internal_value(self, data) -> int:
        if isinstance(data, bool) or not isinstance(data, int | float):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictFloatField(serializers.FloatField):
    """A JSON number; strings and booleans are refused."""

    def to_internal_value(self, data) -> float:
        if isinstance(data, bool) or not isinstance(data, int | float):
            self.fail("invalid")
        return super().to_internal_value(data)


@extend_schema_field(
    {
        "type": "object",
        "nullable": True,
        "properties": {"lat": {"type": "number"}, "lng": {"type": "number"}},
        "required": ["lat", "lng"],
    }
)
class GeolocationField(serializers.Field):
    """{lat, lng} from a model's lat and lng columns (read-only)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("source", "*")
        kwargs["read_only"] = True
        super().__init__(**kwargs)

    def to_representation(self, instance) -> dict | None:
        if instance.lat is None or instance.lng is None:
            return None
        return {"lat": instance.lat, "lng": instance.lng}


class RequiredFieldsMixin:
    """A serializer whose optional fields (shared with PATCH) are required on create."""

    required_fields: tuple[str, ...] = ()

    def get_fields(self) -> dict:
        fields = super().get_fields()
        for name in self.required_fields:
            fields[name].required = True
        return fields
