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
    if "{" in path:
        statuses.append(("404", "the resource named by the path does not exist"))
    statuses.append(("500", "internal_error"))
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
