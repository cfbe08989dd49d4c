from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ApikeysConfig(AppConfig):
    name = "apikeys"
    verbose_name = _("Accounts and API keys")
