from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class SchedulesConfig(AppConfig):
    name = "schedules"
    # Not the model's plural: the breadcrumbs name the app, then the model.
    verbose_name = _("Schedules")
