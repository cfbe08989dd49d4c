from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ClosuresConfig(AppConfig):
    name = "closures"
    verbose_name = _("Closures")
