"""The management interface, version 1 (/api/v1)."""

from django.urls import include, path, re_path

from config import views

urlpatterns = [
    path("", include("apikeys.urls")),
    path("", include("trails.urls")),
    path("", include("updates.urls")),
    re_path(r"^.*$", views.route_not_found),
]
