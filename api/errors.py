"""The management API's errors in the one envelope (core.errors.envelope): every error is
{"error": {"code", "message"}}.

One exception handler maps every error raised under /api/v1, DRF's own included, to the
spec's codes (section 7). Anything unexpected becomes a logged 500 `internal_error` whose
body never carries a traceback.
"""

import logging

from django.core.exceptions import PermissionDenied
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import set_rollback

from core.errors import DomainError, TooMany, envelope, http_status
from core.outages import RETRY_AFTER_SECONDS, UNAVAILABLE

logger = logging.getLogger(__name__)

# Error codes a service or serializer may raise as a ValidationError code and keep as is.
PASS_THROUGH_CODES = frozenset(
    {
        "missing_field",
        "invalid_field",
        "invalid_date",
        "invalid_geometry",
        "no_changes",
        "unknown_activity",
        "unknown_type",
        "too_many_keys",
        "missing_trail_system",
    }
)
# DRF's own validation codes that mean "a required field is absent".
MISSING_CODES = frozenset({"required"})


def _join(path: str, key) -> str:
    """The serializer's own names; the envelope camel-cases the path."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    if key in ("non_field_errors", ""):
        return path
    return f"{path}.{key}" if path else key


def first_validation_error(detail, path: str = "") -> tuple[str, exceptions.ErrorDetail | str]:
    """Walk DRF's nested ValidationError detail to the first (field path, ErrorDetail)."""
    if isinstance(detail, dict):
        for key, value in detail.items():
            return first_validation_error(value, _join(path, key))
    if isinstance(detail, list):
        for index, value in enumerate(detail):
            if isinstance(value, dict | list):
                if value:
                    return first_validation_error(value, _join(path, index))
                continue
            return path, value
    return path, detail


def validation_error_code(err_code: str | None) -> str:
    if err_code in MISSING_CODES:
        return "missing_field"
    if err_code in PASS_THROUGH_CODES:
        return err_code
    return "invalid_field"


def _validation_response(exc: exceptions.ValidationError) -> Response:
    field, detail = first_validation_error(exc.detail)
    code = validation_error_code(getattr(detail, "code", None))
    return Response(envelope(code, str(detail), field), status=status.HTTP_400_BAD_REQUEST)


def _api_exception_response(exc: exceptions.APIException) -> Response:
    """DRF's own exceptions, each given the spec's code."""
    http_status = exc.status_code
    if isinstance(exc, exceptions.NotAuthenticated):
        code = "missing_credentials"
        message = "Send Authorization: Bearer <API key or ID token>, or X-API-Key: <API key>."
    elif isinstance(exc, exceptions.AuthenticationFailed):
        code, message = "invalid_token", str(exc.detail)
    elif isinstance(exc, exceptions.ParseError):
        code, message = "invalid_json", f"Body is not valid JSON: {exc.detail}"
    elif isinstance(exc, exceptions.UnsupportedMediaType):
        # The spec answers any body it cannot read as JSON with 400 invalid_json.
        code = "invalid_json"
        message = f"{exc.detail} Send the body as JSON with Content-Type: application/json."
        http_status = status.HTTP_400_BAD_REQUEST
    elif isinstance(exc, exceptions.MethodNotAllowed):
        # The spec's routes are method + path, so a known path with another method is
        # "no such route"; the 405 status and Allow header keep HTTP clients informed.
        code, message = "not_found", f"No such route: {exc.detail}"
    elif isinstance(exc, exceptions.NotFound):
        code, message = "not_found", str(exc.detail)
    elif isinstance(exc, exceptions.PermissionDenied):
        code, message = "forbidden", str(exc.detail)
    else:
        codes = exc.get_codes()
        code = codes if isinstance(codes, str) else "error"
        message = str(exc.detail)
    response = _error_response(code, message, http_status)
    if getattr(exc, "wait", None):
        response["Retry-After"] = str(int(exc.wait))
    return response


def _error_response(code: str, message: str, http_status: int, field: str = "") -> Response:
    response = Response(envelope(code, message, field), status=http_status)
    if http_status == status.HTTP_401_UNAUTHORIZED:
        response["WWW-Authenticate"] = 'Bearer realm="api"'
    return response


def api_exception_handler(exc, context) -> Response:
    """DRF's exception handler, rewritten to the spec's envelope and codes."""
    set_rollback()
    if isinstance(exc, DomainError):
        response = _error_response(exc.code, exc.message, http_status(exc), exc.field)
        if isinstance(exc, TooMany) and exc.retry_after:
            response["Retry-After"] = str(exc.retry_after)
        return response
    if isinstance(exc, exceptions.ValidationError):
        return _validation_response(exc)
    if isinstance(exc, exceptions.APIException):
        return _api_exception_response(exc)
    if isinstance(exc, Http404):
        return Response(envelope("not_found", "Not found."), status=status.HTTP_404_NOT_FOUND)
    if isinstance(exc, PermissionDenied):
        message = str(exc) or "Forbidden."
        return Response(envelope("forbidden", message), status=status.HTTP_403_FORBIDDEN)
    view = context.get("view")
    if isinstance(exc, UNAVAILABLE):
        # The database or Redis is down or restarting; the client may retry
        # (docs/operators/production.md).
        logger.warning("Unavailable in %s: %r", type(view).__name__, exc)
        response = Response(
            envelope("service_unavailable", "The service is briefly unavailable; retry soon."),
            status=status.HTTP_503_SERVICE_UNAVAILABLE,
        )
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response
    logger.exception("Unhandled error in %s", type(view).__name__ if view else "a view")
    return Response(
        envelope("internal_error", "Unexpected server error; it has been logged."),
        status=status.HTTP_500_INTERNAL_SERVER_ERROR,
    )
