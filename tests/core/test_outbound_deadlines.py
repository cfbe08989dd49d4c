"""Messages to a provider that takes the connection and never answers are given up on: the
sign-up confirmations are sent in the rider's own request, and a worker sends the rest."""

from core.messages import send_email
from tests.silent_server import ends_within, silent_server


def test_an_email_to_a_mail_server_that_never_answers_is_given_up_on(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    context = {"system_name": "Pine Hill", "map_url": "http://x.test/", "confirm_url": "http://x"}
    sent: list[bool] = []
    with silent_server() as port:
        settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", port
        ends_within(
            30,
            lambda: sent.append(
                send_email("alerts/confirm", context, ["r@x.test"], language="en", about="t")
            ),
        )
    assert sent == [False]  # logged, and the work that sent it goes on
