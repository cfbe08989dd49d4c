from django.apps import AppConfig
from django.db.models.signals import post_migrate
from django.utils.translation import gettext_lazy as _

from core.compiles import compile_requested, listing_changed, unpublish_requested


class PublishingConfig(AppConfig):
    name = "publishing"
    verbose_name = _("Publishing")

    def ready(self) -> None:
        # These modules load models, which only exist once the app registry is ready.
        from publishing import publisher, scheduling, storage

        storage.register_content_type()
        compile_requested.connect(scheduling.on_compile_requested, dispatch_uid="publishing.outbox")
        unpublish_requested.connect(
            scheduling.on_unpublish_requested, dispatch_uid="publishing.unpublish"
        )
        listing_changed.connect(scheduling.on_listing_changed, dispatch_uid="publishing.listing")
        post_migrate.connect(publisher.build_missing_all_systems_file, sender=self)
