import base64
import io

import pytest

from tests.silent_server import ends_within, silent_server
from tests.updates.notify_support import (
    TWILIO_SID,
    TWILIO_TOKEN,
    RedirectingHttpClient,
    twilio_error,
)
from updates import sms
from updates.sms import SmsError, console, filebased

pytest_plugins = ["tests.updates.notify_fixtures"]


def test_console_backend_prints_each_message():
    stream = io.StringIO()

    sms.send_sms("+15145550101", "Trails open", connection=console.SmsBackend(stream=stream))

    assert "To: +15145550101" in stream.getvalue()
    assert "Trails open" in stream.getvalue()


def test_file_backend_writes_one_file_per_message(tmp_path, settings):
    settings.SMS_FILE_PATH = str(tmp_path / "sms")
    connection = sms.get_connection("updates.sms.filebased.SmsBackend")

    connection.send_messages(
        [sms.SmsMessage("+15145550101", "first"), sms.SmsMessage("+15145550102", "second")]
    )

    files = sorted((tmp_path / "sms").iterdir())
    assert len(files) == 2
    assert {"first", "second"} == {f.read_text().split("\n\n")[1].split("\n")[0] for f in files}
    assert isinstance(connection, filebased.SmsBackend)


def test_locmem_backend_keeps_messages_in_the_outbox(sms_outbox):
    sms.send_sms("+15145550101", "hello")

    assert [(m.to, m.body) for m in sms_outbox] == [("+15145550101", "hello")]


def test_twilio_backend_posts_what_twilios_messages_api_expects(fake_twilio):
    server = fake_twilio()

    sms.send_sms("+15145550101", "Ridge Loop is closed. Reply STOP to unsubscribe.")

    [request] = server.requests
    assert request.method == "POST"
    assert request.path == f"/2010-04-01/Accounts/{TWILIO_SID}/Messages.json"
    assert request.headers["Content-Type"] == "application/x-www-form-urlencoded"
    credentials = base64.b64encode(f"{TWILIO_SID}:{TWILIO_TOKEN}".encode()).decode()
    assert request.headers["Authorization"] == f"Basic {credentials}"
    assert request.form == {
        "To": ["+15145550101"],
        "From": ["+15005550006"],
        "Body": ["Ridge Loop is closed. Reply STOP to unsubscribe."],
    }


def test_twilio_backend_sends_through_a_messaging_service_when_configured(fake_twilio, settings):
    server = fake_twilio()
    settings.SMS_FROM_NUMBER = "MG" + "a" * 32

    sms.send_sms("+15145550101", "hello")

    assert server.requests[0].form["MessagingServiceSid"] == ["MG" + "a" * 32]
    assert "From" not in server.requests[0].form


@pytest.mark.parametrize(
    ("reply", "permanent"),
    [
        (twilio_error(21211, "The 'To' number is not a valid phone number."), True),
        (twilio_error(21610, "Attempt to send to unsubscribed recipient"), True),
        (twilio_error(20429, "Too Many Requests", status=429), False),
        (twilio_error(20500, "Internal Server Error", status=500), False),
    ],
)
def test_twilio_refusals_say_whether_the_number_will_ever_work(fake_twilio, reply, permanent):
    fake_twilio(lambda request: reply)

    with pytest.raises(SmsError) as refused:
        sms.send_sms("+15145550101", "hello")

    assert refused.value.permanent is permanent
    assert refused.value.code == str(reply[1]["code"])


def test_twilio_unreachable_is_a_transient_error():
    connection = sms.get_connection(
        "updates.sms.twilio.SmsBackend", account_sid=TWILIO_SID, auth_token=TWILIO_TOKEN
    )
    connection.client.http_client = RedirectingHttpClient("http://127.0.0.1:9")

    with pytest.raises(SmsError) as refused:
        connection.send_messages([sms.SmsMessage("+15145550101", "hello", "+15005550006")])

    assert refused.value.permanent is False


def test_a_twilio_that_never_answers_is_given_up_on(monkeypatch):
    """A stalled connection to Twilio (here through a proxy that never answers) must not hold
    a worker, or the request of a rider signing up by text, for ever."""
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    connection = sms.get_connection(
        "updates.sms.twilio.SmsBackend", account_sid=TWILIO_SID, auth_token=TWILIO_TOKEN
    )
    message = sms.SmsMessage("+15145550101", "hello", "+15005550006")
    with silent_server() as port:
        monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{port}")
        error = ends_within(30, lambda: connection.send_messages([message]))

    assert isinstance(error, SmsError) and error.permanent is False
