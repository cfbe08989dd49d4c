from django.urls import path

from api.keys import views

urlpatterns = [
    path("me", views.MeView.as_view(), name="me"),
    path("keys", views.KeysView.as_view(), name="keys"),
    path("keys/<str:key_id>", views.KeyDetailView.as_view(), name="key-detail"),
]
