"""Domain errors: what a service, selector or permission check refuses, with the spec's code.

They live in the bottom layer so that every layer may raise them without knowing how they are
shown; each interface maps them: the management API's exception handler and the public pages
that answer JSON to the one error envelope (`envelope`) and an HTTP status (`http_status`,
section 7 of the spec), the web app to form errors and messages. A message people read outside
the API (the public report form, the web app) is marked for translation where it is raised, in
the active language: the system's on its public pages."""


class DomainError(Exception):
    """A refused operation: a stable code (the spec's), the field it is about when it is about
    one, named as the interface names it (`trailIds`, `expirationDate`), and a message for the
    person that does not repeat the field's name. The API's envelope says `field: message`; a
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


def envelope(code: str, message: str, field: str = "") -> dict:
    """The body of every error answered as JSON: `{"error": {"code", "message"}}`; one about a
    field names it first, as its interface names it: `expirationDate: must be ...`."""
    return {"error": {"code": code, "message": f"{field}: {message}" if field else message}}
