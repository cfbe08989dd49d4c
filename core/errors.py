"""Domain errors: what a service, selector or permission check refuses, with the spec's code.

They live in the bottom layer so that every layer may raise them without knowing how they are
shown; each interface maps them: the management API's exception handler to the error envelope
and an HTTP status (section 7), the web app to form errors and messages."""


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
