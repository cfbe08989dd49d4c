"""The e-mail to a system's Administrators when one of its webhooks is paused after a day of
failures, in the system's language (templates/webhooks/)."""

import logging

from core.links import absolute
from core.messages import send_email
from trails.selectors import administrators_emails
from webhooks.models import WebhookEndpoint

logger = logging.getLogger(__name__)


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
        "page": absolute("admin:webhooks_webhookendpoint_change", endpoint.pk),
        "paused_on": endpoint.paused_on,
        "reason": endpoint.pause_reason,
        "failures": endpoint.failures,
    }
    sent = send_email(
        "webhooks/paused", context, recipients, language=system.language, about=endpoint_id
    )
    return len(recipients) if sent else 0
