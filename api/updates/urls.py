from django.urls import path

from api.updates import views

urlpatterns = [
    path("trail-systems/<str:system_id>/updates", views.UpdatesView.as_view()),
    path("updates/<str:pk>", views.UpdateView.as_view()),
]
