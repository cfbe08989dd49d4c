"""Messages to people (e-mails, text messages), each written once as a template whose words
are gettext's, rendered in its reader's language: the trail system's."""

from django.template.loader import render_to_string
from django.utils import translation


def render_message(template: str, context: dict, *, language: str) -> str:
    """One part of a message (a subject, a body, a text), in `language`, without the blank
    lines around it."""
    with translation.override(language):
        return render_to_string(template, context).strip()


def subject_line(text: str) -> str:
    """A subject on one line, whatever the template's line breaks."""
    return " ".join(text.split())
