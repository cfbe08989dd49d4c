from django.apps import AppConfig


class PublicConfig(AppConfig):
    name = "public"
    verbose_name = "Public map and embeds"

    def ready(self) -> None:
        from closures.services import closures_published
        from grooming.sessions import groomers_moved
        from public.live import hub
        from publishing.publisher import map_published

        # Compiles, trackers' positions and closures written by this process (the embedded
        # default) reach its live map streams.
        map_published.connect(hub.published, dispatch_uid="public.live.hub")
        groomers_moved.connect(hub.groomers_moved, dispatch_uid="public.live.hub.groomers")
        closures_published.connect(hub.closures_changed, dispatch_uid="public.live.hub.closures")
