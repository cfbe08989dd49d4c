from django.urls import path

from api.reports import views

urlpatterns = [
    path("trail-systems/<str:system_id>/reports", views.ReportsView.as_view()),
    path("reports/<str:report_id>", views.ReportView.as_view()),
    path("reports/<str:report_id>/photo", views.ReportPhotoView.as_view(), name="api-report-photo"),
]
