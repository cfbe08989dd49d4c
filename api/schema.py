"""OpenAPI additions: both credentials as security schemes, and the error envelope on every
operation. Loaded by apikeys.apps.ApikeysConfig.ready()."""

from django.conf import settings
from drf_spectacular.extensions import OpenApiAuthenticationExtension

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


def require_a_field_in_patch_bodies(result: dict, generator, request, public) -> dict:
    """Postprocessing hook: a PATCH body must be sent and hold at least one field (a missing
    or empty one answers 400 no_changes), which the generated Patched* components do not say
    by themselves."""
    schemas = result.get("components", {}).get("schemas", {})
    for operations in result.get("paths", {}).values():
        request_body = operations.get("patch", {}).get("requestBody", {})
        if request_body:
            request_body["required"] = True
        for media in request_body.get("content", {}).values():
            name = media.get("schema", {}).get("$ref", "").rsplit("/", 1)[-1]
            if name in schemas:
                schemas[name]["minProperties"] = 1
    return result


# Request bodies whose fields exclude each other (400 invalid_field), said as JSON Schema can.
EXCLUSIVE_FIELDS = {
    "UpdateCreateRequest": ("expirationDate", "expiresInHours"),
    "PatchedUpdateFieldsRequest": ("expirationDate", "expiresInHours"),
}


def forbid_fields_together(result: dict, generator, request, public) -> dict:
    """Postprocessing hook: a body may hold one of two exclusive fields, not both."""
    schemas = result.get("components", {}).get("schemas", {})
    for name, fields in EXCLUSIVE_FIELDS.items():
        if name in schemas:
            schemas[name]["not"] = {"required": list(fields)}
    return result


# DRF's CharField refuses NUL characters (a NUL cannot even be stored in PostgreSQL text).
NO_NUL_PATTERN = "^[^\\u0000]*$"


def forbid_nul_in_request_strings(result: dict, generator, request, public) -> dict:
    """Postprocessing hook: free-text strings of request bodies say that they refuse NUL, as
    the fields do (400 invalid_field), so a client reading the schema knows."""
    for name, schema in result.get("components", {}).get("schemas", {}).items():
        if name.endswith("Request"):
            _forbid_nul(schema)
    return result


def _forbid_nul(schema: dict) -> None:
    if schema.get("type") == "string" and not {"format", "enum", "pattern"} & schema.keys():
        schema["pattern"] = NO_NUL_PATTERN
    for child in schema.get("properties", {}).values():
        _forbid_nul(child)
    if isinstance(schema.get("items"), dict):
        _forbid_nul(schema["items"])
