"""Start-up checks of the VAPID keys: a pair that does not match would have every push
service refuse every message, found only when the first rider is not told."""

from django.conf import settings
from django.core.checks import Error, Tags, Warning, register

from alerts import vapid


@register(Tags.security, deploy=True)
def check_vapid_key_set(app_configs=None, **kwargs) -> list:
    """A deployment's check (`check --deploy`): every other command would print it on a
    machine that does not send push alerts (the tests', a developer's)."""
    if vapid.configured():
        return []
    return [
        Warning(
            "VAPID_PRIVATE_KEY is not set: riders cannot follow trails by Web Push.",
            hint="`make run` writes a pair into .env; docs/operators/alerts.md says how "
            "to make one for production.",
            id="alerts.W001",
        )
    ]


@register(Tags.compatibility)
def check_vapid_keys(app_configs=None, **kwargs) -> list:
    if not vapid.configured():
        return []
    try:
        derived = vapid.public_key()
    except Exception as error:
        return [Error(f"VAPID_PRIVATE_KEY cannot be read: {error}", id="alerts.E001")]
    if settings.VAPID_PUBLIC_KEY and derived != settings.VAPID_PUBLIC_KEY:
        return [
            Error(
                "VAPID_PUBLIC_KEY is not the public key of VAPID_PRIVATE_KEY.",
                hint=f"Its public key is {derived}.",
                id="alerts.E002",
            )
        ]
    return []
