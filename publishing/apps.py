from django.apps import AppConfig
from django.db.models.signals import post_migrate


def build_missing_all_systems_file(**kwargs) -> None:
    """After migrations, build the legacy all-systems file when it is absent."""
    from django.core.files.storage import default_storage

    from publishing.service import rebuild_all_systems_file
    from publishing.storage import ALL_SYSTEMS_NAME

    if not default_storage.exists(ALL_SYSTEMS_NAME):
        rebuild_all_systems_file()


class PublishingConfig(AppConfig):
    name = "publishing"

    def ready(self) -> None:
        from publishing.storage import register_content_type

        register_content_type()
        post_migrate.connect(build_missing_all_systems_file, sender=self)
