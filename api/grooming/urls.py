from django.urls import path

from api.grooming import log_views, views

urlpatterns = [
    path("trail-systems/<str:system_id>/grooming-tracks", views.GroomingTracksView.as_view()),
    path("trail-systems/<str:system_id>/grooming", views.GroomingView.as_view()),
    path("trail-systems/<str:system_id>/grooming-log", log_views.GroomingLogView.as_view()),
    path(
        "trail-systems/<str:system_id>/grooming-log/approvals",
        log_views.GroomingLogApprovalsView.as_view(),
    ),
    path(
        "trail-systems/<str:system_id>/grooming-log/approvals/<str:approval_id>/reopen",
        log_views.GroomingLogReopenView.as_view(),
    ),
]
