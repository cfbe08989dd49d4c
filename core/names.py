"""Field names as the interfaces show them: camelCase, derived from the model's snake_case name
by the camel-case library the API's renderer uses, never written out by hand. Only what writes
a wire format calls it (the error envelope, the field descriptions of trails/fields.py, the
published file, the events' payloads); services and their refusals use their own names."""

from djangorestframework_camel_case.util import camelize_re, underscore_to_camel


def camel(name: str) -> str:
    return camelize_re.sub(underscore_to_camel, name)
