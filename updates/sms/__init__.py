"""SMS sending, on the pattern of Django's email framework: a backend chosen by the dotted
path in ``SMS_BACKEND`` (console, file, locmem, twilio), ``get_connection()`` and ``send_sms()``.

Tests read ``updates.sms.outbox`` after sending through the locmem backend.
"""

from dataclasses import dataclass, field

from django.conf import settings
from django.utils.module_loading import import_string

outbox: list["SmsMessage"] = []


@dataclass
class SmsMessage:
    to: str
    body: str
    from_number: str = field(default_factory=lambda: settings.SMS_FROM_NUMBER)


class SmsError(Exception):
    """The provider refused a message; ``permanent`` means the number will never work."""

    def __init__(self, message: str, *, code: str = "", permanent: bool = False):
        super().__init__(message)
        self.code = code
        self.permanent = permanent


def get_connection(backend: str | None = None, **kwargs):
    """An instance of the SMS backend; keyword arguments go to its constructor."""
    return import_string(backend or settings.SMS_BACKEND)(**kwargs)


def send_sms(to: str, body: str, *, connection=None) -> None:
    """Send one SMS through the configured backend; raises SmsError on refusal."""
    (connection or get_connection()).send_messages([SmsMessage(to=to, body=body)])
