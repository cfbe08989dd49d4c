from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TrailsConfig(AppConfig):
    name = "trails"
    verbose_name = _("Trails")
