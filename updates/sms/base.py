"""The interface every SMS backend implements, as Django's BaseEmailBackend does for email."""

from collections.abc import Sequence

from updates.sms import SmsMessage


class BaseSmsBackend:
    """``send_messages`` sends each message in turn and raises SmsError on the first refusal,
    so the caller records one outcome per message by sending them one at a time."""

    def __init__(self, **kwargs):
        pass

    def open(self) -> None:
        """Open a reusable connection when the backend has one."""

    def close(self) -> None:
        """Close what open() opened."""

    def __enter__(self):
        self.open()
        return self

    def __exit__(self, *exc_info):
        self.close()

    def send_messages(self, messages: Sequence[SmsMessage]) -> int:
        raise NotImplementedError
