import json

from django.conf import settings
from djangorestframework_camel_case.parser import CamelCaseJSONParser as _CamelCaseJSONParser
from djangorestframework_camel_case.util import underscoreize
from rest_framework.exceptions import ParseError


def _reject_constant(name: str):
    raise ValueError(f"{name} is not valid JSON")


class CamelCaseJSONParser(_CamelCaseJSONParser):
    """camelCase request keys to snake_case; the interface's odd spellings kept intact.

    Strict JSON: NaN and Infinity are refused, and so is nesting too deep to decode, both as
    400 invalid_json rather than a value the serializers never expect or a 500.
    """

    # GeoJSON coordinates hold no keys: a long trace is not walked position by position.
    json_underscoreize = {"ignore_keys": ("promoteTrailHUB",), "ignore_fields": ("coordinates",)}

    def parse(self, stream, media_type=None, parser_context=None):
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            data = json.loads(stream.read().decode(encoding), parse_constant=_reject_constant)
            return underscoreize(data, **self.json_underscoreize)
        except (ValueError, RecursionError) as error:
            raise ParseError(f"JSON parse error - {error}") from error
