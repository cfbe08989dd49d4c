"""The e-mail to a system's Administrators when one of its webhooks is paused after a day of
failures, in the system's language (templates/webhooks/)."""

import logging

from django.conf import settings
from django.core import mail
from django.urls import NoReverseMatch, reverse

from core.messages import render_message, subject_line
from trails.selectors import administrators_emails
from webhooks.models import WebhookEndpoint

logger = logging.getLogger(__name__)


def endpoint_page(endpoint: WebhookEndpoint) -> str:
    try:
        path = reverse("admin:webhooks_webhookendpoint_change", args=[endpoint.pk])
    except NoReverseMatch:  # no web app in this process
        path = "/admin/"
    return f"{settings.PUBLIC_BASE_URL}{path}"


def tell_paused(endpoint_id: str) -> int:
    """Send the notice; returns how many addresses it went to."""
    endpoint = WebhookEndpoint.objects.select_related("trail_system").filter(pk=endpoint_id).first()
    if endpoint is None:
        return 0
    recipients = administrators_emails(endpoint.trail_system)
    if not recipients:
        logger.warning("webhook %s paused; its system has no Administrator address", endpoint_id)
        return 0
    system = endpoint.trail_system
    context = {
        "system_name": system.name,
        "url": endpoint.url,
        "page": endpoint_page(endpoint),
        "paused_on": endpoint.paused_on,
        "reason": endpoint.pause_reason,
        "failures": endpoint.failures,
    }

    def part(name: str) -> str:
        return render_message(f"webhooks/{name}", context, language=system.language)

    mail.send_mail(
        subject_line(part("paused_subject.txt")), part("paused_email.txt"), None, recipients
    )
    return len(recipients)
