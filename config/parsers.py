from djangorestframework_camel_case.parser import CamelCaseJSONParser as _CamelCaseJSONParser


class CamelCaseJSONParser(_CamelCaseJSONParser):
    """camelCase request keys to snake_case; the interface's odd spellings kept intact."""

    json_underscoreize = {"ignore_keys": ("promoteTrailHUB",)}
