from django.apps import AppConfig
from django.contrib.admin.apps import AdminConfig


class WebappConfig(AppConfig):
    """The web app for trail managers: sign-in, the role rule, and the admin's pages."""

    name = "webapp"


class WebappAdminConfig(AdminConfig):
    """Django's admin, with our site as `admin.site` (sign-in methods and who may enter)."""

    default_site = "webapp.site.TrailsAdminSite"
