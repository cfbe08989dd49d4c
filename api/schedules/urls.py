from django.urls import path

from api.schedules import views

urlpatterns = [
    path("trail-systems/<str:system_id>/schedules", views.SchedulesView.as_view()),
    path(
        "trail-systems/<str:system_id>/schedules/<str:schedule_id>",
        views.ScheduleView.as_view(),
    ),
]
