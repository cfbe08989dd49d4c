from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CapConfig(AppConfig):
    name = "cap"
    verbose_name = _("Public warnings (CAP)")
