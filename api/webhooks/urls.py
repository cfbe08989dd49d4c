from django.urls import path

from api.webhooks import views

urlpatterns = [
    path("trail-systems/<str:system_id>/webhooks", views.WebhooksView.as_view()),
    path("trail-systems/<str:system_id>/webhooks/<str:webhook_id>", views.WebhookView.as_view()),
    path(
        "trail-systems/<str:system_id>/webhooks/<str:webhook_id>/rotate-secret",
        views.RotateSecretView.as_view(),
    ),
    path(
        "trail-systems/<str:system_id>/webhooks/<str:webhook_id>/resume",
        views.ResumeView.as_view(),
    ),
]
