"""System checks of the webhooks configuration."""

from django.conf import settings
from django.core.checks import Tags, Warning, register


@register(Tags.security, deploy=True)
def private_targets_off_in_deployment(app_configs, **kwargs) -> list[Warning]:
    """`check --deploy`: with private targets allowed, an Administrator's webhook can make the
    service post to its own network (databases' HTTP ports, a cloud's metadata service)."""
    if not settings.WEBHOOK_ALLOW_PRIVATE_TARGETS:
        return []
    return [
        Warning(
            "WEBHOOK_ALLOW_PRIVATE_TARGETS is on: webhooks may be sent to loopback, private "
            "and link-local addresses, the service's own network included.",
            hint="Unset it, unless every Administrator of every system may reach that network.",
            id="webhooks.W001",
        )
    ]
