from django.urls import path

from api.grooming import views

urlpatterns = [
    path("trail-systems/<str:system_id>/grooming-tracks", views.GroomingTracksView.as_view()),
    path("trail-systems/<str:system_id>/grooming", views.GroomingView.as_view()),
]
