"""OpenAPI additions: both credentials as security schemes, and the error envelope on every
operation. Loaded by apikeys.apps.ApikeysConfig.ready()."""

from django.conf import settings
from drf_spectacular.extensions import OpenApiAuthenticationExtension

from core.text import WHITESPACE

ERROR_SCHEMA = {
    "type": "object",
    "description": "Every error of the management interface.",
    "properties": {
        "error": {
            "type": "object",
            "properties": {
                "code": {"type": "string", "description": "One of the codes of spec section 7."},
                "message": {"type": "string", "description": "For people; names the field."},
            },
            "required": ["code", "message"],
        }
    },
    "required": ["error"],
}
CREDENTIAL_ERRORS = (
    (
        "401",
        "missing_credentials, invalid_api_key, revoked_api_key, expired_api_key, invalid_token",
    ),
    ("403", "insufficient_scope, id_token_required, key_restricted, forbidden, admin_required"),
)
BODY_ERRORS = (
    ("400", "missing_field, invalid_field, invalid_date, invalid_json and the endpoint's own"),
    ("413", "payload_too_large: the body is over 2 MB"),
)
WRITE_METHODS = {"post", "put", "patch"}
QUERY_ERROR = ("400", "invalid_field: a query parameter outside the values it takes")


class ApiKeyScheme(OpenApiAuthenticationExtension):
    target_class = "api.authentication.ApiKeyAuthentication"
    name = ["apiKeyBearer", "apiKeyHeader"]

    def get_security_requirement(self, auto_schema) -> list[dict]:
        """Either header will do: two alternatives, not both at once."""
        return [{name: []} for name in self.name]

    def get_security_definition(self, auto_schema) -> list[dict]:
        about = f"An API key (it starts with {settings.API_KEY_PREFIX}); create one at POST /keys."
        return [
            {"type": "http", "scheme": "bearer", "description": f"{about} Authorization: Bearer."},
            {"type": "apiKey", "in": "header", "name": "X-API-Key", "description": about},
        ]


class IdTokenScheme(OpenApiAuthenticationExtension):
    target_class = "api.authentication.FirebaseIdTokenAuthentication"
    name = "idToken"

    def get_security_definition(self, auto_schema) -> dict:
        return {
            "type": "http",
            "scheme": "bearer",
            "bearerFormat": "JWT",
            "description": "A Firebase ID token of the signed-in manager; scopes read and write.",
        }


# Operations the state of their row can refuse (core.errors.Conflict).
CONFLICTS = {
    ("/closures/{id}", "patch"): "closure_ended: the closure has ended; close the stretch anew",
}


def _error_responses(path: str, method: str, operation: dict) -> list[tuple[str, str]]:
    statuses = []
    if {} not in operation.get("security", [{}]):
        statuses.extend(CREDENTIAL_ERRORS)
    if method in WRITE_METHODS:
        statuses.extend(BODY_ERRORS)
    elif any(parameter.get("in") == "query" for parameter in operation.get("parameters", [])):
        statuses.append(QUERY_ERROR)
    if "{" in path:
        statuses.append(("404", "the resource named by the path does not exist"))
    if (path, method) in CONFLICTS:
        statuses.append(("409", CONFLICTS[path, method]))
    statuses.append(("500", "internal_error"))
    statuses.append(("503", "service_unavailable: the database cannot be reached; retry soon"))
    return statuses


def add_error_responses(result: dict, generator, request, public) -> dict:
    """Postprocessing hook: the envelope as a component, referenced by each error status."""
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR_SCHEMA
    content = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
    for path, operations in result.get("paths", {}).items():
        for method, operation in operations.items():
            responses = operation.setdefault("responses", {})
            for status, codes in _error_responses(path, method, operation):
                responses.setdefault(status, {"description": f"Error: {codes}", "content": content})
    return result


def require_bodies(result: dict, generator, request, public) -> dict:
    """Postprocessing hook: a write that takes a body must be sent one (a grooming track
    without one is 400 invalid_geometry), and a PATCH body must hold at least one field (a
    missing or empty one answers 400 no_changes), which the generated components do not say
    by themselves."""
    schemas = result.get("components", {}).get("schemas", {})
    for operations in result.get("paths", {}).values():
        for method, operation in operations.items():
            request_body = operation.get("requestBody", {})
            if request_body:
                request_body["required"] = True
            if method != "patch":
                continue
            for media in request_body.get("content", {}).values():
                name = media.get("schema", {}).get("$ref", "").rsplit("/", 1)[-1]
                if name in schemas:
                    schemas[name]["minProperties"] = 1
    return result


def _any_of_fields(names: tuple[str, ...]) -> dict:
    return {"anyOf": [{"required": [name]} for name in names]}


def _none_of(*names: str) -> dict:
    return {"not": _any_of_fields(names)}


def _only_together(*names: str) -> dict:
    return {"anyOf": [{"required": list(names)}, _none_of(*names)]}


def _is(name: str, value) -> dict:
    return {"properties": {name: {"enum": [value]}}, "required": [name]}


def _non_empty(name: str) -> dict:
    return {"properties": {name: {"type": "array", "minItems": 1}}, "required": [name]}


def _set(name: str) -> dict:
    """Present and not null (OpenAPI 3.0: a subschema without nullable refuses null)."""
    return {"properties": {name: {"type": "string"}}, "required": [name]}


_NOT_BOTH_EXPIRIES = {"not": {"required": ["expirationDate", "expiresInHours"]}}
_END_STATUS_NEEDS_AN_END = {
    "anyOf": [
        {"not": {"required": ["endStatus"]}},
        {"properties": {"endStatus": {"not": {"type": "string"}}}},
        _set("endsAt"),
        _set("endTime"),
    ]
}
# An end of a closed stretch is a place or a distance along the trail, not both.
_ONE_NAME_FOR_EACH_END = (
    {"not": {"required": ["from", "fromMeters"]}},
    {"not": {"required": ["to", "toMeters"]}},
)
# Request bodies whose fields depend on each other or on a type (400 invalid_field or
# missing_field), said as JSON Schema can: each rule is one more member of the body's allOf.
FIELD_RULES = {
    "UpdateCreateRequest": (
        _NOT_BOTH_EXPIRIES,
        {
            "oneOf": [
                {**_is("type", "notice"), "required": ["type", "description"]},
                {
                    **_is("type", "surfaceConditions"),
                    "required": ["type", "conditions"],
                    "anyOf": [_is("allTrails", True), _non_empty("trailIds")],
                },
                _is("type", "snowReport"),
            ]
        },
    ),
    "PatchedUpdateFieldsRequest": (_NOT_BOTH_EXPIRIES,),
    "ScheduleCreateRequest": (
        {
            "oneOf": [
                {
                    **_is("repeat", "once"),
                    "required": ["repeat", "startsAt"],
                    **_none_of("startTime", "endTime", "firstDate", "lastDate"),
                },
                {
                    **_is("repeat", "daily"),
                    "required": ["repeat", "startTime"],
                    **_none_of("startsAt", "endsAt"),
                },
            ]
        },
        _END_STATUS_NEEDS_AN_END,
    ),
    "TrailsStatusRequest": ({"anyOf": [_non_empty("trailIds"), _is("all", True)]},),
    "PatchedPointFieldsRequest": (_only_together("lat", "lng"),),
    "ClosureCreateRequest": _ONE_NAME_FOR_EACH_END,
    "PatchedClosureFieldsRequest": _ONE_NAME_FOR_EACH_END,
}


def add_field_rules(result: dict, generator, request, public) -> dict:
    """Postprocessing hook: the rules between a body's fields (one of two, both or neither,
    the fields a type or a repeat requires or excludes), which the serializers' own schemas
    do not say."""
    schemas = result.get("components", {}).get("schemas", {})
    for name, rules in FIELD_RULES.items():
        if name in schemas:
            schemas[name].setdefault("allOf", []).extend(rules)
    return result


# DRF's CharField refuses NUL characters (a NUL cannot even be stored in PostgreSQL text).
NO_NUL_PATTERN = "^[^\\u0000]*$"
# DRF's CharField trims with str.strip() before it checks for blank: a string of only
# whitespace is blank where one character is asked for.
NOT_ONLY_SPACES = {"pattern": f"[^{WHITESPACE}]"}
# Bodies whose serializers refuse a member they do not know (api.keys.serializers.StrictSerializer):
# a misspelt option of a key must not silently make an unrestricted one.
CLOSED_BODIES = ("KeyCreateRequest",)


def describe_request_strings(result: dict, generator, request, public) -> dict:
    """Postprocessing hook: request bodies say what their strings refuse (NUL; only spaces
    where one character is required) and which bodies refuse unknown members, as the fields
    do (400 invalid_field), so a client reading the schema knows."""
    for name, schema in result.get("components", {}).get("schemas", {}).items():
        if name.endswith("Request"):
            _describe_strings(schema)
        if name in CLOSED_BODIES:
            schema["additionalProperties"] = False
    return result


def _describe_strings(schema: dict) -> None:
    if schema.get("type") == "string" and not {"format", "enum"} & schema.keys():
        if "pattern" not in schema:
            schema["pattern"] = NO_NUL_PATTERN
        if schema.get("minLength", 0) >= 1:
            schema.setdefault("allOf", []).append(NOT_ONLY_SPACES)
    for child in schema.get("properties", {}).values():
        _describe_strings(child)
    if isinstance(schema.get("items"), dict):
        _describe_strings(schema["items"])
