from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GroomingConfig(AppConfig):
    name = "grooming"
    verbose_name = _("Grooming")

    def ready(self) -> None:
        # These modules load models, which only exist once the app registry is ready.
        from grooming import sessions, tasks

        sessions.measurement_due.connect(tasks.on_measurement_due, dispatch_uid="grooming.measure")
