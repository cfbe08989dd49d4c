from django.urls import path

from api.closures import views

urlpatterns = [
    path("trails/<str:pk>/closures", views.TrailClosuresView.as_view()),
    path("trail-systems/<str:system_id>/closures", views.SystemClosuresView.as_view()),
    path("closures/<str:pk>", views.ClosureView.as_view()),
    path("trail-systems/<str:system_id>/route-check", views.RouteCheckView.as_view()),
]
