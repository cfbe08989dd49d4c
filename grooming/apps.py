from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GroomingConfig(AppConfig):
    name = "grooming"
    verbose_name = _("Grooming")
