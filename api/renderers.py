from djangorestframework_camel_case.render import CamelCaseJSONRenderer as _CamelCaseJSONRenderer


class CamelCaseJSONRenderer(_CamelCaseJSONRenderer):
    """camelCase keys, compact UTF-8 output."""

    ensure_ascii = False
    compact = True
