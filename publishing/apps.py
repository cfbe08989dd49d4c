import logging

from django.apps import AppConfig
from django.db.models.signals import post_migrate

logger = logging.getLogger(__name__)


def build_missing_all_systems_file(**kwargs) -> None:
    """After migrations, build the legacy all-systems file when it is absent. A storage that
    cannot be reached (migrations run without its credentials) must not fail `migrate`:
    the file is also built on first read and by beat."""
    from django.core.files.storage import default_storage

    from publishing.service import rebuild_all_systems_file
    from publishing.storage import ALL_SYSTEMS_NAME

    try:
        if not default_storage.exists(ALL_SYSTEMS_NAME):
            rebuild_all_systems_file()
    except Exception:
        logger.warning("all-systems file not built after migrate", exc_info=True)


class PublishingConfig(AppConfig):
    name = "publishing"

    def ready(self) -> None:
        from publishing.storage import register_content_type

        register_content_type()
        from publishing import metrics  # noqa: F401 - registers the compile metrics

        post_migrate.connect(build_missing_all_systems_file, sender=self)
