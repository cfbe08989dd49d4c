"""Writes one file per SMS into ``SMS_FILE_PATH``, for inspection in development."""

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings

from updates.sms import SmsMessage
from updates.sms.base import BaseSmsBackend
from updates.sms.console import format_message


class SmsBackend(BaseSmsBackend):
    def __init__(self, *, file_path: str | None = None, **kwargs):
        super().__init__(**kwargs)
        self.file_path = Path(file_path or settings.SMS_FILE_PATH)
        self.file_path.mkdir(parents=True, exist_ok=True)

    def send_messages(self, messages: Sequence[SmsMessage]) -> int:
        for message in messages:
            stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
            name = f"{stamp}-{uuid.uuid4().hex[:12]}.txt"
            (self.file_path / name).write_text(format_message(message), encoding="utf-8")
        return len(messages)
