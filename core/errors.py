"""Domain errors: what a service, selector or permission check refuses, with the spec's code.

They live in the bottom layer so that every layer may raise them without knowing how they are
shown; each interface maps them: the management API's exception handler and the public pages
that answer JSON to the one error envelope (`envelope`, the one place a field's name is
camel-cased for the wire) and an HTTP status (`http_status`, section 7 of the spec), the web
app to form errors and messages. A message people read outside
the API (the public report form, the web app) is marked for translation where it is raised, in
the active language: the system's on its public pages."""

from django.http import JsonResponse

from core.names import camel


class DomainError(Exception):
    """A refused operation: a stable code (the spec's), the field it is about when it is about
    one, named as the domain names it (`trail_ids`, `expiration_date`, `rules[0].trail_id`),
    and a message for the person that does not repeat the field's name. The JSON envelope says
    `field: message` with the field camel-cased as the interfaces spell it (`trailIds`); a
    web-app form shows the message on its field."""

    def __init__(self, code: str, message: str, *, field: str = ""):
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field

    def __str__(self) -> str:
        """As one line of text, where neither an envelope nor a form shows it (a command's
        error, a log line, a message over a list)."""
        return f"{self.field}: {self.message}" if self.field else self.message


class Invalid(DomainError):
    """The request breaks a rule: a missing or bad field, an unknown activity, too many keys."""


class NotFound(DomainError):
    """The row named does not exist, or not where the request looks for it."""


class Forbidden(DomainError):
    """The caller is known but may not do this."""


class NotAuthenticated(DomainError):
    """The caller could not be identified (missing, expired or unknown credentials)."""


class Conflict(DomainError):
    """The row's state refuses the change, however well formed (a closure that has ended)."""


class TooLarge(Invalid):
    """A body or an upload over its size limit."""


class TooMany(DomainError):
    """More than a limit allows for now: try again after `retry_after` seconds (0: unknown)."""

    def __init__(self, code: str, message: str, *, field: str = "", retry_after: int = 0):
        super().__init__(code, message, field=field)
        self.retry_after = retry_after


# The HTTP status of each kind, the most specific first.
_HTTP_STATUS: dict[type[DomainError], int] = {
    TooLarge: 413,
    Invalid: 400,
    NotFound: 404,
    Forbidden: 403,
    Conflict: 409,
    NotAuthenticated: 401,
    TooMany: 429,
}


def http_status(error: DomainError) -> int:
    return next(code for kind, code in _HTTP_STATUS.items() if isinstance(error, kind))


def envelope(code: str, message: str, field: str = "", *, field_apart: bool = False) -> dict:
    """The body of every error answered as JSON: `{"error": {"code", "message"}}`; one about a
    field names it first, camel-cased as the interfaces spell it: the domain's
    `expiration_date` is said `expirationDate: must be ...`. `field_apart` also gives that name
    as `field`, for a page's script that marks the field (the alerts form)."""
    if not field:
        return {"error": {"code": code, "message": message}}
    name = camel(field)
    error = {"code": code, "message": f"{name}: {message}"}
    return {"error": error | {"field": name} if field_apart else error}


def refusal_response(error: DomainError, *, field_apart: bool = False) -> JsonResponse:
    """A refusal answered as JSON by a page outside the management API (which has its own
    handler): the one envelope, with its kind's HTTP status (and Retry-After, when a limit
    says when to try again)."""
    body = envelope(error.code, error.message, error.field, field_apart=field_apart)
    response = JsonResponse(body, status=http_status(error))
    if isinstance(error, TooMany) and error.retry_after:
        response["Retry-After"] = str(error.retry_after)
    return response
