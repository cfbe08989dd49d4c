"""Writes each SMS to standard output: the embedded default."""

import sys
import threading
from collections.abc import Sequence

from updates.sms import SmsMessage
from updates.sms.base import BaseSmsBackend


def format_message(message: SmsMessage) -> str:
    return f"From: {message.from_number}\nTo: {message.to}\n\n{message.body}\n{'-' * 79}\n"


class SmsBackend(BaseSmsBackend):
    def __init__(self, *, stream=None, **kwargs):
        super().__init__(**kwargs)
        self.stream = stream or sys.stdout
        self._lock = threading.RLock()

    def send_messages(self, messages: Sequence[SmsMessage]) -> int:
        with self._lock:
            for message in messages:
                self.stream.write(format_message(message))
            self.stream.flush()
        return len(messages)
