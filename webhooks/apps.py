from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _

from core.events import events_announced


class WebhooksConfig(AppConfig):
    name = "webhooks"
    verbose_name = _("Webhooks")

    def ready(self) -> None:
        # The outbox loads models, which only exist once the app registry is ready; the
        # checks and the metrics register themselves on import.
        from webhooks import checks, metrics, outbox  # noqa: F401

        events_announced.connect(outbox.on_events_announced, dispatch_uid="webhooks.outbox")
