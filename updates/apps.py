from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class UpdatesConfig(AppConfig):
    name = "updates"
    verbose_name = _("Updates and subscribers")

    def ready(self) -> None:
        from updates import metrics  # noqa: F401 - registers the delivery gauges
