from django.conf import settings
from django.contrib import admin
from django.urls import include, path, re_path
from django.views.static import serve

urlpatterns = [
    path("api/v1/", include("api.urls")),
    path("legacy/", include("legacy.urls")),
    path("admin/", admin.site.urls),
    path("", include("webapp.urls")),
]


def serve_media(request, path: str):
    """Local published files; MEDIA_ROOT is read per request, not frozen at URLconf import."""
    return serve(request, path, document_root=settings.MEDIA_ROOT)


if settings.SERVE_MEDIA and settings.STORAGE_BACKEND == "local":
    prefix = settings.MEDIA_URL.lstrip("/")
    urlpatterns.append(re_path(rf"^{prefix}(?P<path>.*)$", serve_media))
