from django.apps import AppConfig


class ApiConfig(AppConfig):
    """The management interface (/api/v1)."""

    name = "api"

    def ready(self) -> None:
        # Imported for its side effect (drf-spectacular registers the security schemes on
        # import); an AppConfig may only import such modules once the registry is ready.
        from api import schema  # noqa: F401
