from django.apps import AppConfig


class DemoConfig(AppConfig):
    """`load_demo`: a demo trail system written through the services."""

    name = "demo"
