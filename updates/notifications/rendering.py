"""What a subscriber gets: an update's email and SMS, rendered once per chunk in the trail
system's language and units, with each subscriber's unsubscribe link put in at the end."""

import re
from dataclasses import dataclass
from datetime import datetime

from django.core import mail
from django.utils import timezone
from django.utils.html import escape

from core.links import absolute
from core.messages import render_message, subject_line
from core.names import camel
from updates import sms
from updates.enums import UpdateType
from updates.models import Subscriber, Update, new_unsubscribe_token
from updates.notifications import sms_text
from updates.types import (
    SNOW_DATES,
    SNOW_DEPTHS,
    SURFACE_CONDITION_CATALOG,
    UPDATE_TYPES,
    in_language,
)

DEPTH_UNITS = {"inches": "in", "centimeters": "cm"}


def public_map_url(system_id: str) -> str:
    return absolute("public-map", system_id)


def unsubscribe_url(token: str) -> str:
    return absolute("unsubscribe", token)


def _number(value: float) -> str:
    return f"{value:g}"


def _date(value: datetime) -> str:
    return timezone.localtime(value).date().isoformat()


def message_context(update: Update) -> dict:
    """Everything the templates show, already in the system's language and units."""
    system = update.trail_system
    language = system.language
    template = UPDATE_TYPES[update.type]
    context = {
        "language": language,
        "system_name": system.name,
        "update_type": update.type,
        "update_label": in_language(template.label, language),
        "map_url": public_map_url(system.pk),
    }
    if update.type != UpdateType.SNOW_REPORT:  # snow reports are about the whole system
        context |= {
            "all_trails": update.all_trails,
            "trail_names": list(update.trails.order_by("order").values_list("name", flat=True)),
        }
    if update.type == UpdateType.NOTICE:
        severity = next(f for f in template.fields if f.property == "severity")
        labels = {value: in_language(text, language) for value, text in severity.options or ()}
        context |= {
            "description": update.description,
            "severity": update.severity or "info",
            "severity_label": labels.get(update.severity or "info", ""),
            "link_url": update.link_url,
        }
    elif update.type == UpdateType.SURFACE_CONDITIONS:
        context |= {
            "conditions": [
                SURFACE_CONDITION_CATALOG[value].entry(language)["text"]
                for value in update.conditions
                if value in SURFACE_CONDITION_CATALOG
            ],
        }
    elif update.type == UpdateType.SNOW_REPORT:
        unit = DEPTH_UNITS.get(system.depth_measurement, system.depth_measurement)
        labels = {f.property: in_language(f.label, language) for f in template.fields}
        figures = []
        for name in (*SNOW_DEPTHS, *SNOW_DATES):
            value = getattr(update, name)
            if value is None:
                continue
            shown = _date(value) if name in SNOW_DATES else f"{_number(value)} {unit}"
            if name == "last_snow_date" and update.last_snow_time:
                shown = f"{shown} {update.last_snow_time}"
            figures.append({"label": labels[camel(name)], "value": shown})
        context["figures"] = figures
    return context


# Rendered once per chunk with this in place of the link, which is all that differs between
# subscribers; it has no character that HTML escaping would change.
LINK_PLACEHOLDER = "UNSUBSCRIBE-LINK-7f3c9a"


@dataclass(frozen=True)
class Messages:
    """An update's message parts (subject, text and HTML email bodies, SMS text)."""

    subject: str
    text: str
    html: str
    sms: str

    @classmethod
    def render(cls, context: dict) -> "Messages":
        context = {**context, "unsubscribe_url": LINK_PLACEHOLDER}

        def part(name: str, **more) -> str:
            return render_message(
                f"notifications/{name}", {**context, **more}, language=context["language"]
            )

        def sms(content: str, *, link: bool, name_max: int) -> str:
            name = sms_text.sms_name(context["system_name"], name_max)
            unsubscribe = LINK_PLACEHOLDER if link else ""
            lines = part(
                "sms.txt", sms_content=content, system_name=name, unsubscribe_url=unsubscribe
            )
            return re.sub(r"\n\s*\n+", "\n", lines).strip()

        # Each subscriber's link is longer than the placeholder the text is cut around.
        link_extra = len(unsubscribe_url(new_unsubscribe_token())) - len(LINK_PLACEHOLDER)
        return cls(
            subject=subject_line(part("subject.txt")),
            text=re.sub(r"\n\s*\n\s*\n+", "\n\n", part("body.txt")),
            html=part("body.html"),
            sms=sms_text.fit(
                sms,
                re.sub(r"\n\s*\n+", "\n", part("content.txt")).strip(),
                link_extra=link_extra,
            ),
        )

    def email_for(self, subscriber: Subscriber) -> mail.EmailMultiAlternatives:
        link = unsubscribe_url(subscriber.unsubscribe_token)
        message = mail.EmailMultiAlternatives(
            subject=self.subject,
            body=self.text.replace(LINK_PLACEHOLDER, link),
            to=[subscriber.email],
            headers={
                "List-Unsubscribe": f"<{link}>",
                "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
            },
        )
        message.attach_alternative(self.html.replace(LINK_PLACEHOLDER, escape(link)), "text/html")
        return message

    def sms_for(self, subscriber: Subscriber) -> sms.SmsMessage:
        link = unsubscribe_url(subscriber.unsubscribe_token)
        return sms.SmsMessage(to=subscriber.phone, body=self.sms.replace(LINK_PLACEHOLDER, link))
