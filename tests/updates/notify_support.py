"""Fakes for the notification tests: a Twilio backend wired to a local fake of Twilio's API
through the client's own HTTP-client hook, and a minimal SMTP server that can refuse chosen
recipients. Their fixtures are in notify_fixtures."""

import socketserver
import threading

from twilio.http.http_client import TwilioHttpClient

from tests.fake_http import Recorded
from updates.sms import twilio as twilio_backend

TWILIO_SID = "AC" + "0" * 32
TWILIO_TOKEN = "test-auth-token"
TWILIO_API = "https://api.twilio.com"


class RedirectingHttpClient(TwilioHttpClient):
    """Twilio's own HTTP client, sending to base_url instead of api.twilio.com."""

    def __init__(self, base_url: str):
        super().__init__()
        self.base_url = base_url

    def request(self, method, url, *args, **kwargs):
        return super().request(method, url.replace(TWILIO_API, self.base_url), *args, **kwargs)


class FakeTwilioBackend(twilio_backend.SmsBackend):
    """The real Twilio backend, configured (as settings would) to reach the fake API."""

    base_url = ""

    def __init__(self, **kwargs):
        super().__init__(
            account_sid=TWILIO_SID,
            auth_token=TWILIO_TOKEN,
            http_client=RedirectingHttpClient(self.base_url),
            **kwargs,
        )


def twilio_error(code: int, message: str, status: int = 400) -> tuple[int, dict]:
    return status, {
        "code": code,
        "message": message,
        "more_info": f"https://www.twilio.com/docs/errors/{code}",
        "status": status,
    }


TWILIO_BODY_MAX = 1600  # characters; Twilio answers 21617 to a longer body


def twilio_created(request: Recorded) -> tuple[int, dict]:
    """Twilio's answer to a message it queues; like Twilio, a body over 1,600 characters is
    refused."""
    form = request.form
    if len(form["Body"][0]) > TWILIO_BODY_MAX:
        return twilio_error(
            21617, "The concatenated message body exceeds the 1600 character limit."
        )
    return 201, {
        "sid": "SM" + "1" * 32,
        "account_sid": TWILIO_SID,
        "to": form["To"][0],
        "from": form.get("From", [""])[0],
        "body": form["Body"][0],
        "status": "queued",
        "num_segments": "1",
        "api_version": "2010-04-01",
        "uri": f"/2010-04-01/Accounts/{TWILIO_SID}/Messages/SM{'1' * 32}.json",
    }


class FakeSmtpServer(socketserver.ThreadingTCPServer):
    """Just enough SMTP for smtplib: refuses RCPT TO for addresses in `refused`, counts
    connections and stores accepted recipients."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, refused: set[str]):
        self.refused = refused
        self.connections = 0
        self.delivered: list[str] = []
        super().__init__(("127.0.0.1", 0), SmtpHandler)
        self.port = self.server_address[1]
        threading.Thread(
            target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()


class SmtpHandler(socketserver.StreamRequestHandler):
    server: FakeSmtpServer

    def reply(self, line: str) -> None:
        self.wfile.write(f"{line}\r\n".encode())

    def handle(self) -> None:
        self.server.connections += 1
        self.reply("220 fake ESMTP")
        recipients: list[str] = []
        for raw in self.rfile:
            command = raw.decode().strip()
            verb = command.split(" ", 1)[0].upper()
            if verb in {"EHLO", "HELO"}:
                self.reply("250 fake")
            elif verb == "RCPT":
                address = command.split(":", 1)[1].strip().strip("<>")
                if address in self.server.refused:
                    self.reply("550 5.1.1 No such user")
                else:
                    recipients.append(address)
                    self.reply("250 OK")
            elif verb == "DATA":
                self.reply("354 End data with <CR><LF>.<CR><LF>")
                for line in self.rfile:
                    if line in (b".\r\n", b".\n"):
                        break
                self.server.delivered.extend(recipients)
                self.reply("250 OK")
            elif verb == "QUIT":
                self.reply("221 Bye")
                return
            else:  # MAIL, RSET, NOOP
                recipients = [] if verb in {"MAIL", "RSET"} else recipients
                self.reply("250 OK")
