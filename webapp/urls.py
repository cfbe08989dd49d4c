"""Public routes at the site root reached from Twilio."""

from django.urls import path

from webapp import subscriptions as public_views

urlpatterns = [
    path("sms/inbound", public_views.inbound_sms_view, name="sms-inbound"),
]
