from django.urls import path

from api.trails import views

urlpatterns = [
    path("trail-systems", views.TrailSystemListView.as_view()),
    path("trail-systems/<str:system_id>", views.TrailSystemView.as_view()),
    path("trail-systems/<str:system_id>/compile", views.CompileView.as_view()),
    path("trail-systems/<str:system_id>/weather", views.WeatherView.as_view()),
    path("trail-systems/<str:system_id>/trails", views.TrailsView.as_view()),
    path("trail-systems/<str:system_id>/trails/status", views.TrailsStatusView.as_view()),
    path("trail-systems/<str:system_id>/points", views.PointsView.as_view()),
    path("trails/<str:pk>", views.TrailView.as_view()),
    path("points/<str:pk>", views.PointView.as_view()),
    path("trails/<str:pk>/history", views.TrailHistoryView.as_view()),
    path("points/<str:pk>/history", views.PointHistoryView.as_view()),
]
