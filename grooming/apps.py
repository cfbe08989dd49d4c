from django.apps import AppConfig


class GroomingConfig(AppConfig):
    name = "grooming"
    verbose_name = "Grooming"
