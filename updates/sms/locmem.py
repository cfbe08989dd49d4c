"""Keeps SMS in ``updates.sms.outbox``, for tests and benchmarks."""

from collections.abc import Sequence

from updates import sms
from updates.sms import SmsMessage
from updates.sms.base import BaseSmsBackend


class SmsBackend(BaseSmsBackend):
    def send_messages(self, messages: Sequence[SmsMessage]) -> int:
        sms.outbox.extend(messages)
        return len(messages)
