"""The real URL conf plus one route with a bug, to see what a client gets from a 500."""

from django.contrib import admin
from django.urls import include, path
from rest_framework.decorators import api_view, authentication_classes, permission_classes
from rest_framework.permissions import AllowAny


@api_view(["GET"])
@authentication_classes([])
@permission_classes([AllowAny])
def broken(request):
    raise RuntimeError("secret internals at /srv/app/settings.py")


def broken_page(request):
    raise RuntimeError("secret internals at /srv/app/settings.py")


urlpatterns = [
    path("api/v1/broken", broken),
    path("admin/broken", admin.site.admin_view(broken_page)),
    path("broken", broken_page),
    path("", include("config.urls")),
]
handler404 = "config.errors.page_not_found"
handler500 = "config.errors.server_error"
