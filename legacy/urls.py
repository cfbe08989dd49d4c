from django.urls import path, re_path

from legacy import views

urlpatterns = [
    path("trail-systems", views.trail_systems),
    path("ts/<str:system_id>", views.trail_system),
    path("trails/<str:system_id>", views.system_trails),
    path("trail/<str:trail_id>", views.trail),
    path("point/<str:point_id>", views.point),
    path("weather/<str:system_id>", views.weather),
    re_path(r"^(?P<path>.*)$", views.unknown_route),
]
