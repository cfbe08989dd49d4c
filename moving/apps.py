from django.apps import AppConfig


class MovingConfig(AppConfig):
    """Moving trail systems in and out: OpenStreetMap, GPX and legacy-interface importers and
    the export. Above trails, updates and publishing; nothing depends on it."""

    name = "moving"
