"""Sends SMS through Twilio's Messages API with the official client.

Credentials come from ``TWILIO_ACCOUNT_SID`` and ``TWILIO_AUTH_TOKEN``; the sender is
``SMS_FROM_NUMBER`` (a number, or a Messaging Service SID starting with ``MG``). Tests pass the
client's own ``http_client`` hook to talk to a local fake of the API.
"""

from collections.abc import Sequence

import requests
from django.conf import settings
from twilio.base.exceptions import TwilioRestException
from twilio.http import HttpClient
from twilio.http.http_client import TwilioHttpClient
from twilio.rest import Client

from updates.sms import SmsError, SmsMessage
from updates.sms.base import BaseSmsBackend

# Twilio error codes that mean this number can never receive our messages: invalid number,
# not a mobile number, unreachable, or the recipient replied STOP.
PERMANENT_ERROR_CODES = frozenset({21211, 21214, 21610, 21612, 21614})
# Seconds Twilio may take to answer: its client waits for ever by default, and a stalled
# connection would hold a worker, or the request of a rider signing up by text.
TIMEOUT_SECONDS = 10


class SmsBackend(BaseSmsBackend):
    def __init__(
        self,
        *,
        account_sid: str | None = None,
        auth_token: str | None = None,
        http_client: HttpClient | None = None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.client = Client(
            account_sid or settings.TWILIO_ACCOUNT_SID,
            auth_token or settings.TWILIO_AUTH_TOKEN,
            http_client=http_client or TwilioHttpClient(timeout=TIMEOUT_SECONDS),
        )

    def send_messages(self, messages: Sequence[SmsMessage]) -> int:
        for message in messages:
            self._send(message)
        return len(messages)

    def _send(self, message: SmsMessage) -> None:
        sender = (
            {"messaging_service_sid": message.from_number}
            if message.from_number.startswith("MG")
            else {"from_": message.from_number}
        )
        try:
            self.client.messages.create(to=message.to, body=message.body, **sender)
        except TwilioRestException as error:
            raise SmsError(
                f"Twilio {error.status} {error.code}: {error.msg}",
                code=str(error.code or error.status),
                permanent=error.code in PERMANENT_ERROR_CODES,
            ) from error
        except requests.RequestException as error:
            raise SmsError(f"Twilio unreachable: {error}", code="network") from error
