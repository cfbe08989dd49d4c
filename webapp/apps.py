from django.apps import AppConfig


class WebappConfig(AppConfig):
    """The web app (the Django admin's pages) and the public pages reached from messages."""

    name = "webapp"
