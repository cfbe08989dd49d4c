from djangorestframework_camel_case.render import CamelCaseJSONRenderer as _CamelCaseJSONRenderer
from rest_framework.renderers import JSONRenderer


class CamelCaseJSONRenderer(_CamelCaseJSONRenderer):
    """camelCase keys, compact UTF-8 output."""

    ensure_ascii = False
    compact = True


class ShapedJSONRenderer(JSONRenderer):
    """For a document built in the interface's names already (the grooming log): camelizing
    its keys again, 100,000 of them for a season, took most of the answer's time."""

    ensure_ascii = False
    compact = True
