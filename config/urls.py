from django.conf import settings
from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path, re_path
from django.views.generic import RedirectView

from config import health, metrics
from moving.views import export_download
from publishing.media import serve_media

urlpatterns = [
    path("api/v1/", include("api.urls")),
    path("legacy/", include("legacy.urls")),
    path(
        "admin/trail-systems/<str:system_id>/export.geojson",
        admin.site.admin_view(export_download),
        name="export-download",
    ),
    path("admin/", admin.site.urls),
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("metrics", metrics.metrics_view, name="metrics"),
    # Browsers ask for it on every site; pages name the same icon in their <head>.
    path("favicon.ico", RedirectView.as_view(url=static("webapp/favicon.svg"), permanent=True)),
    path("", include("public.urls")),
]


if settings.SERVE_MEDIA and settings.STORAGE_BACKEND == "local":
    prefix = settings.MEDIA_URL.lstrip("/")
    urlpatterns.append(re_path(rf"^{prefix}(?P<path>.*)$", serve_media))

handler403 = "config.errors.permission_denied"
handler404 = "config.errors.page_not_found"
handler500 = "config.errors.server_error"
