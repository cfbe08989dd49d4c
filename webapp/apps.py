from django.apps import AppConfig
from django.contrib.admin.apps import AdminConfig


class WebappConfig(AppConfig):
    """The web app: the managers' admin pages, their sign-in and role rule, and the public
    pages reached from messages."""

    name = "webapp"


class WebappAdminConfig(AdminConfig):
    """Django's admin, with our site as `admin.site` (sign-in methods and who may enter)."""

    default_site = "webapp.site.TrailsAdminSite"

    def ready(self) -> None:
        super().ready()  # registers every app's admin pages
        # It imports django-axes' models, which exist only once the app registry is ready.
        from webapp import lockouts

        lockouts.register()
