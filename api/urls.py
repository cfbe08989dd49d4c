"""The management interface, version 1 (/api/v1)."""

from django.urls import include, path, re_path

from api import discovery, views

urlpatterns = [
    path("", discovery.ApiRootView.as_view(), name="api-root"),
    path("update-types", discovery.UpdateTypesView.as_view(), name="api-update-types"),
    path("schema", views.SchemaView.as_view(), name="api-schema"),
    path("docs", views.OfflineSwaggerView.as_view(), name="api-docs"),
    path("docs/assets/<str:filename>", views.swagger_ui_asset, name="api-docs-asset"),
    path("", include("api.keys.urls")),
    path("", include("api.trails.urls")),
    path("", include("api.updates.urls")),
    path("", include("api.grooming.urls")),
    path("", include("api.schedules.urls")),
    path("", include("api.webhooks.urls")),
    path("", include("api.trackers.urls")),
    path("", include("api.reports.urls")),
    path("", include("api.closures.urls")),
    re_path(r"^.*$", views.route_not_found),
]
