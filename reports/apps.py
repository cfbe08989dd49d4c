from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ReportsConfig(AppConfig):
    name = "reports"
    verbose_name = _("Rider reports")

    def ready(self) -> None:
        # The metrics register their gauges on import.
        from reports import metrics  # noqa: F401
