"""Public routes at the site root, reached from messages and from Twilio."""

from django.urls import path

from webapp import subscriptions as public_views

urlpatterns = [
    path("unsubscribe/<str:token>", public_views.unsubscribe_view, name="unsubscribe"),
    path("sms/inbound", public_views.inbound_sms_view, name="sms-inbound"),
]
