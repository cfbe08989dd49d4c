from django.apps import AppConfig


class ApikeysConfig(AppConfig):
    name = "apikeys"

    def ready(self) -> None:
        from apikeys import checks  # noqa: F401 - registers the system checks
