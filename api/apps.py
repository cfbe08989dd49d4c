from django.apps import AppConfig


class ApiConfig(AppConfig):
    """The management interface (/api/v1)."""

    name = "api"

    def ready(self) -> None:
        # Imported for their side effects (drf-spectacular registers the security schemes,
        # Django the system checks, on import); an AppConfig may only import such modules
        # once the registry is ready.
        from api import checks, schema  # noqa: F401
