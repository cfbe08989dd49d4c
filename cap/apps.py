from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CapConfig(AppConfig):
    name = "cap"
    verbose_name = _("Public warnings (CAP)")

    def ready(self) -> None:
        # These modules load models, which only exist once the app registry is ready.
        from cap import tasks
        from closures.services import closure_changed
        from updates.services import update_changed

        update_changed.connect(tasks.on_warnings_changed, dispatch_uid="cap.updates")
        closure_changed.connect(tasks.on_warnings_changed, dispatch_uid="cap.closures")
