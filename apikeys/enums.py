"""The choices of API keys."""

from django.db import models


class KeyScope(models.TextChoices):
    READ = "read"
    WRITE = "write"
