"""Web app for updates (recompiled on every change), subscribers and deliveries (read-only)."""

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError

from updates.enums import SURFACE_CONDITIONS
from updates.models import Delivery, Subscriber, Update
from updates.subscribers import clean_contact
from updates.types import SNOW_DEPTHS, SURFACE_CONDITION_CATALOG
from webapp.admin.base import CompileOnWriteAdmin, ReadOnlyAdmin
from webapp.scoping import RoleScopedAdmin


class UpdateForm(forms.ModelForm):
    conditions = forms.MultipleChoiceField(
        choices=[(value, SURFACE_CONDITION_CATALOG[value].en) for value in SURFACE_CONDITIONS],
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="Surface conditions only.",
    )

    class Meta:
        model = Update
        fields = [
            "trail_system",
            "type",
            "expiration_date",
            "trails",
            "all_trails",
            "description",
            "severity",
            "link_url",
            "conditions",
            *SNOW_DEPTHS,
            "last_snow_date",
            "last_snow_time",
            "last_snow_making_date",
        ]

    def clean(self):
        cleaned = super().clean()
        kind = cleaned.get("type")
        if kind == "notice" and not cleaned.get("description"):
            self.add_error("description", "A notice needs its text.")
        if kind == "surfaceConditions":
            if not cleaned.get("conditions"):
                self.add_error("conditions", "Choose at least one surface condition.")
            if not cleaned.get("trails") and not cleaned.get("all_trails"):
                self.add_error("trails", "Choose trails, or tick all trails.")
        system, trails = cleaned.get("trail_system"), cleaned.get("trails")
        if system and trails and any(t.trail_system_id != system.pk for t in trails):
            self.add_error("trails", "Every trail must belong to the update's trail system.")
        return cleaned


@admin.register(Update)
class UpdateAdmin(CompileOnWriteAdmin):
    form = UpdateForm
    list_display = ["type", "trail_system", "expiration_date", "notify", "source", "updated_on"]
    list_filter = ["type", "source", "trail_system"]
    list_select_related = ["trail_system"]
    search_fields = ["id", "description"]
    date_hierarchy = "expiration_date"
    autocomplete_fields = ["trail_system", "trails"]

    def save_model(self, request, obj, form, change):
        if not change:
            obj.source = Update.Source.WEB
        super().save_model(request, obj, form, change)


class SubscriberForm(forms.ModelForm):
    class Meta:
        model = Subscriber
        fields = ["trail_system", "email", "phone", "unsubscribed_on"]

    def clean(self):
        cleaned = super().clean()
        if (
            cleaned.get("trail_system")
            and not self.has_error("email")
            and not self.has_error("phone")
        ):
            try:
                cleaned["email"], cleaned["phone"] = clean_contact(
                    cleaned["trail_system"],
                    email=cleaned.get("email", ""),
                    phone=cleaned.get("phone", ""),
                    exclude_id=None if self.instance._state.adding else self.instance.pk,
                )
            except ValidationError as error:
                raise ValidationError(error.messages) from None
        return cleaned


@admin.register(Subscriber)
class SubscriberAdmin(RoleScopedAdmin):
    form = SubscriberForm
    list_display = ["__str__", "trail_system", "email", "phone", "created_on", "unsubscribed_on"]
    list_filter = ["trail_system"]
    list_select_related = ["trail_system"]
    search_fields = ["email", "phone"]
    autocomplete_fields = ["trail_system"]
    readonly_fields = ["id", "created_on", "email_failed_on", "phone_failed_on"]


@admin.register(Delivery)
class DeliveryAdmin(ReadOnlyAdmin):
    """What was sent to whom; written only by the notification task."""

    list_display = ["update", "subscriber", "channel", "state", "attempts", "sent_on"]
    list_filter = ["channel", "state"]
    list_select_related = ["update", "subscriber"]
