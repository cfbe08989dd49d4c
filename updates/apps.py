from django.apps import AppConfig


class UpdatesConfig(AppConfig):
    name = "updates"

    def ready(self) -> None:
        from updates import metrics  # noqa: F401 - registers the delivery gauges
