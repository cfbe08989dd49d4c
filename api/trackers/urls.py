from django.urls import path

from api.trackers import views

urlpatterns = [
    path("trail-systems/<str:system_id>/trackers", views.TrackersView.as_view()),
    path("trackers/<str:tracker_id>", views.TrackerView.as_view()),
]
