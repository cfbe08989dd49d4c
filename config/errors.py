"""The management error envelope: every error is {"error": {"code", "message"}}."""

import logging

from django.core.exceptions import PermissionDenied
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response

logger = logging.getLogger(__name__)


class ApiError(exceptions.APIException):
    """An error with one of the spec's codes (section 7)."""

    status_code = status.HTTP_400_BAD_REQUEST

    def __init__(self, code: str, message: str, status_code: int | None = None):
        self.code = code
        self.message = message
        if status_code is not None:
            self.status_code = status_code
        super().__init__(detail=message, code=code)


def bad_request(code: str, message: str) -> ApiError:
    return ApiError(code, message, status.HTTP_400_BAD_REQUEST)


def not_found(code: str, message: str) -> ApiError:
    return ApiError(code, message, status.HTTP_404_NOT_FOUND)


def forbidden(code: str, message: str) -> ApiError:
    return ApiError(code, message, status.HTTP_403_FORBIDDEN)


def unauthorized(code: str, message: str) -> ApiError:
    return ApiError(code, message, status.HTTP_401_UNAUTHORIZED)


def envelope(code: str, message: str) -> dict:
    return {"error": {"code": code, "message": message}}


def _first_validation_error(detail, path: str = "") -> tuple[str, str]:
    """Walk DRF's nested ValidationError detail to the first (field, ErrorDetail)."""
    if isinstance(detail, dict):
        for key, value in detail.items():
            name = key if key != "non_field_errors" else ""
            return _first_validation_error(
                value, f"{path}.{name}" if path and name else name or path
            )
    if isinstance(detail, list) and detail:
        first = detail[0]
        if isinstance(first, dict | list):
            return _first_validation_error(first, path)
        return path, first
    return path, detail


def validation_error_code(err_code: str | None) -> str:
    if err_code in {"required"}:
        return "missing_field"
    if err_code in {"invalid_date"}:
        return "invalid_date"
    if err_code in {
        "invalid_geometry",
        "unknown_activity",
        "no_changes",
        "missing_field",
        "invalid_field",
    }:
        return err_code
    return "invalid_field"


def api_exception_handler(exc, context):
    """DRF's exception handler, rewritten to the spec's envelope and codes."""
    from djangorestframework_camel_case.util import camelize_re, underscore_to_camel

    if isinstance(exc, ApiError):
        return Response(envelope(exc.code, exc.message), status=exc.status_code)
    if isinstance(exc, Http404):
        return Response(envelope("not_found", "Not found."), status=404)
    if isinstance(exc, PermissionDenied):
        return Response(envelope("forbidden", str(exc) or "Forbidden."), status=403)
    if isinstance(exc, exceptions.ValidationError):
        field, detail = _first_validation_error(exc.detail)
        code = validation_error_code(getattr(detail, "code", None))
        field = camelize_re.sub(underscore_to_camel, field) if field else ""
        message = f"{field}: {detail}" if field else str(detail)
        return Response(envelope(code, message), status=400)
    if isinstance(exc, exceptions.ParseError):
        return Response(envelope("invalid_json", f"Body is not valid JSON: {exc.detail}"), 400)
    if isinstance(exc, exceptions.NotAuthenticated):
        return Response(
            envelope("missing_credentials", "Send Authorization: Bearer <key or token>."), 401
        )
    if isinstance(exc, exceptions.AuthenticationFailed):
        return Response(envelope("invalid_token", str(exc.detail)), 401)
    if isinstance(exc, exceptions.PermissionDenied):
        return Response(envelope("forbidden", str(exc.detail)), 403)
    if isinstance(exc, exceptions.NotFound):
        return Response(envelope("not_found", str(exc.detail)), 404)
    if isinstance(exc, exceptions.MethodNotAllowed):
        return Response(envelope("method_not_allowed", str(exc.detail)), 405)
    if isinstance(exc, exceptions.UnsupportedMediaType):
        return Response(envelope("invalid_json", str(exc.detail)), 415)
    if isinstance(exc, exceptions.APIException):
        code = exc.get_codes() if isinstance(exc.get_codes(), str) else "error"
        return Response(envelope(code, str(exc.detail)), exc.status_code)
    logger.exception("Unhandled error in %s", context.get("view"))
    return Response(envelope("internal_error", "Unexpected server error."), status=500)
