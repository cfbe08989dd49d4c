from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _

from core.events import events_announced


class AlertsConfig(AppConfig):
    name = "alerts"
    verbose_name = _("Alerts")

    def ready(self) -> None:
        # The triggers load models, which only exist once the app registry is ready; the
        # checks register themselves on import.
        from alerts import checks, metrics, triggers  # noqa: F401

        events_announced.connect(triggers.on_events_announced, dispatch_uid="alerts.triggers")
