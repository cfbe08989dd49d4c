"""System checks of the credentials configuration."""

from django.conf import settings
from django.core.checks import Error, Tags, register


@register(Tags.security, deploy=True)
def emulator_tokens_off_in_deployment(app_configs, **kwargs) -> list[Error]:
    """`check --deploy`: emulator mode accepts unsigned ID tokens for any uid."""
    if not settings.FIREBASE_EMULATOR:
        return []
    return [
        Error(
            "FIREBASE_AUTH_EMULATOR_HOST is set: unsigned ID tokens are accepted for any uid "
            f"(project {settings.FIREBASE_PROJECT_ID}).",
            hint="Set FIREBASE_PROJECT_ID to the real project and unset "
            "FIREBASE_AUTH_EMULATOR_HOST.",
            id="api.E001",
        )
    ]
