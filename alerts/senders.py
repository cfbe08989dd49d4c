"""Sending one alert through its follower's channel: Web Push to the push service of its
subscription, an e-mail through Django's mail backend, an SMS through the service's SMS
backend (updates.sms) at most two segments long, as subscribers' notifications are. One
sender per compartment (alerts.delivery's queue), over one connection for a batch; every
message in the system's language, with the map link and the rider's alerts page."""

import json
import logging
import smtplib

from django.conf import settings
from django.core import mail
from django.utils import translation

from alerts.models import Alert, Channel, Follower
from alerts.outcomes import Outcome
from alerts.push import PushSender
from alerts.services import manage_url
from alerts.texts import map_url, payload, tag, title_and_body, topic
from core.messages import render_message, subject_line
from updates import sms
from updates.notifications import sms_text

logger = logging.getLogger(__name__)
# The distinct messages a push sender keeps made (a batch holds a few changes' alerts).
MESSAGES_KEPT = 64


class WebPushSender:
    """The push messages of one compartment's batch. One change's followers are told the same
    (the payload differs only by each rider's alerts page): its message, title, topic and
    translation are made once and reused for each follower, while this sender lives."""

    def __init__(self, origin: str) -> None:
        self.pusher = PushSender(origin)
        self.messages: dict[tuple, tuple[dict, str]] = {}

    def _message(self, alert: Alert) -> tuple[dict, str]:
        """The payload without its manageUrl, and the Topic."""
        system = alert.follower.trail_system
        key = (system.pk, system.name, system.language, alert.follows, json.dumps(alert.items))
        message = self.messages.get(key)
        if message is None:
            with translation.override(system.language):
                document = payload(
                    system_id=system.pk,
                    system_name=system.name,
                    items=alert.items,
                    follows=alert.follows,
                    manage_url="",
                )
            message = document, topic(tag(system.pk, alert.items))
            if len(self.messages) >= MESSAGES_KEPT:
                self.messages.clear()
            self.messages[key] = message
        return message

    def send(self, alert: Alert) -> Outcome:
        follower = alert.follower
        document, message_topic = self._message(alert)
        document = {**document, "manageUrl": manage_url(follower.pk)}
        return self.pusher.send(
            endpoint=follower.endpoint,
            p256dh=follower.p256dh,
            auth=follower.auth,
            payload=json.dumps(document).encode(),
            ttl=settings.ALERTS_PUSH_TTL_SECONDS,
            urgency="high" if alert.urgent else "normal",
            topic=message_topic,
        )

    def close(self) -> None:
        self.pusher.close()


def _context(alert: Alert) -> dict:
    """What an e-mail or SMS says, in the system's language (`language`)."""
    follower: Follower = alert.follower
    system = follower.trail_system
    with translation.override(system.language):
        title, body = title_and_body(alert.items, system.name, alert.follows)
    trail_ids = {item.get("trailId") for item in alert.items}
    return {
        "language": system.language,
        "system_name": system.name,
        "title": title,
        "body": body if body != system.name else "",
        "map_url": map_url(system.pk, trail_ids.pop() if len(trail_ids) == 1 else None),
        "manage_url": manage_url(follower.pk),
    }


class EmailSender:
    def __init__(self) -> None:
        self.connection = mail.get_connection()

    def send(self, alert: Alert) -> Outcome:
        context = _context(alert)
        message = mail.EmailMessage(
            subject_line(context["title"]),
            render_message("alerts/alert_email.txt", context, language=context["language"]),
            None,
            [alert.follower.address],
            connection=self.connection,
        )
        try:
            message.send()
        except smtplib.SMTPRecipientsRefused as error:
            return Outcome(gone=True, error=f"refused: {error.recipients}"[:500])
        except (smtplib.SMTPException, OSError) as error:
            self.connection.close()
            return Outcome(retryable=True, error=f"{type(error).__name__}: {error}"[:500])
        return Outcome(ok=True)

    def close(self) -> None:
        self.connection.close()


class SmsSender:
    def __init__(self) -> None:
        self.connection = sms.get_connection()

    def send(self, alert: Alert) -> Outcome:
        context = _context(alert)
        text = ". ".join(part for part in (context["title"], context["body"]) if part)

        def build(text: str, *, link: bool, name_max: int) -> str:
            words = {
                **context,
                "text": text,
                "system_name": sms_text.sms_name(context["system_name"], name_max),
                "manage_url": context["manage_url"] if link else "",
            }
            return render_message("alerts/alert_sms.txt", words, language=context["language"])

        body = sms_text.fit(build, text)
        try:
            self.connection.send_messages([sms.SmsMessage(to=alert.follower.address, body=body)])
        except sms.SmsError as error:
            return Outcome(gone=error.permanent, retryable=not error.permanent, error=str(error))
        return Outcome(ok=True)

    def close(self) -> None:
        """SMS backends hold no connection to close."""


Sender = WebPushSender | EmailSender | SmsSender


def sender_for(queue: str) -> Sender:
    """The sender of a compartment: the e-mail or SMS channel, else a push service."""
    if queue == Channel.EMAIL:
        return EmailSender()
    if queue == Channel.SMS:
        return SmsSender()
    return WebPushSender(queue)
