from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _

from core.compiles import compile_requested


class CapConfig(AppConfig):
    name = "cap"
    verbose_name = _("Public warnings (CAP)")

    def ready(self) -> None:
        # These modules load models, which only exist once the app registry is ready.
        from cap import tasks
        from closures.services import closure_changed

        compile_requested.connect(tasks.on_warnings_changed, dispatch_uid="cap.compiles")
        closure_changed.connect(tasks.on_warnings_changed, dispatch_uid="cap.closures")
