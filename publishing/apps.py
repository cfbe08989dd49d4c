from django.apps import AppConfig


class PublishingConfig(AppConfig):
    name = "publishing"
