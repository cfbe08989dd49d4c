"""Messages to people (e-mails, text messages), each written once as a template whose words
are gettext's, rendered in its reader's language: the trail system's."""

import logging

from django.core import mail
from django.template.loader import render_to_string
from django.utils import translation

logger = logging.getLogger(__name__)


def render_message(template: str, context: dict, *, language: str) -> str:
    """One part of a message (a subject, a body, a text), in `language`, without the blank
    lines around it."""
    with translation.override(language):
        return render_to_string(template, context).strip()


def subject_line(text: str) -> str:
    """A subject on one line, whatever the template's line breaks."""
    return " ".join(text.split())


def send_email(message: str, context: dict, to: list[str], *, language: str, about: str) -> bool:
    """One e-mail from DEFAULT_FROM_EMAIL to `to` (who see one another: a system's
    Administrators, or one person): the templates `<message>_subject.txt` and
    `<message>_email.txt` rendered in `language`. A failure is logged with `about` (the id of
    what the message is about) and answered False: the work that sends a message is done
    whether or not its message goes."""
    try:
        mail.send_mail(
            subject_line(render_message(f"{message}_subject.txt", context, language=language)),
            render_message(f"{message}_email.txt", context, language=language),
            None,
            to,
        )
    except Exception:
        logger.exception("The e-mail %s about %s failed", message, about)
        return False
    return True
