"""Bases every web-app page shares."""

from django import forms
from django.contrib import admin, messages
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _
from djangorestframework_camel_case.util import camel_to_underscore

from core.actors import Actor, Via
from core.compiles import request_compile
from core.errors import DomainError
from core.models import Audited
from webapp.scoping import RoleScopedAdmin


def web_actor(request) -> Actor:
    """The signed-in person, writing through the web app."""
    return Actor(request.user.pk, Via.WEB_APP)


@admin.display(description=_("account"))
def account_text(obj) -> str:
    """The row's account as text. A read-only account field would link to the account's page,
    which only superAdmins may open."""
    return str(obj.user)


@admin.display(description=_("trail system"))
def system_overview_link(obj) -> str:
    """The row's system, linked to its Overview, which everyone with a role on it may open (a
    read-only system field would link to its details, which are the Administrators')."""
    url = reverse("admin:trails_trailsystem_overview", args=[obj.trail_system_id])
    return format_html('<a href="{}">{}</a>', url, obj.trail_system)


class SystemLinkOnViewMixin:
    """On a page the reader may only view, the row's system links to its Overview."""

    def get_fields(self, request, obj=None):
        fields = super().get_fields(request, obj)
        if self.has_change_permission(request, obj):
            return fields
        # In the system field's place (the admin lists read-only extras last).
        return [
            system_overview_link if name == "trail_system" else name
            for name in fields
            if name is not system_overview_link
        ]

    def get_readonly_fields(self, request, obj=None):
        readonly = super().get_readonly_fields(request, obj)
        if self.has_change_permission(request, obj):
            return readonly
        return [*readonly, system_overview_link]


class ServiceAdmin(RoleScopedAdmin):
    """A page whose writes are service calls: a rule a service refuses comes back as an error
    on the form, which shows again with the person's input; nothing of the refused save is kept
    (the admin's transaction is rolled back)."""

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except DomainError as error:
            # The same post again, with a form that carries the refusal: it is invalid, so the
            # admin shows it with the input and saves nothing.
            request.service_refusal = error
            return super().changeform_view(request, object_id, form_url, extra_context)

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change, **kwargs)
        refusal = getattr(request, "service_refusal", None)
        if refusal is None:
            return form
        return type(form.__name__, (RefusedForm, form), {"refusal": refusal})

    def changed_fields(self, form) -> dict:
        """What the person changed, as the services take it."""
        return {name: form.cleaned_data[name] for name in form.changed_data}


class RefusedForm(forms.BaseForm):
    """A form a service refused: the refusal is its error, so it is invalid. The error goes on
    the field the service's message names (`expirationDate: must be ...`), without the name;
    on the form as a whole when it names no field of this form."""

    refusal: DomainError

    def clean(self):
        cleaned = super().clean()
        named, separator, rest = self.refusal.message.partition(": ")
        field = camel_to_underscore(named)
        if separator and field in self.fields:
            self.add_error(field, rest[:1].upper() + rest[1:])
        else:
            self.add_error(None, self.refusal.message)
        return cleaned


class CompileOnWriteAdmin(RoleScopedAdmin):
    """Stamps who changed a row and queues a compile of its system on add, change, delete."""

    def save_model(self, request, obj, form, change):
        if isinstance(obj, Audited):
            obj.updated_on = timezone.now()
            obj.updated_by = request.user.pk
            if not change:
                obj.created_by = request.user.pk
        # A row moved to another system leaves the old system's published file too.
        previous = form.initial.get("trail_system") if "trail_system" in form.changed_data else None
        with transaction.atomic():
            super().save_model(request, obj, form, change)
            reason = f"web app saved {obj._meta.model_name}"
            for system_id in {obj.trail_system_id, previous} - {None}:
                request_compile(system_id, reason=reason)

    def delete_model(self, request, obj):
        with transaction.atomic():
            super().delete_model(request, obj)
            request_compile(obj.trail_system_id, reason=f"web app deleted {obj._meta.model_name}")

    def delete_queryset(self, request, queryset):
        with transaction.atomic():
            system_ids = set(queryset.values_list("trail_system_id", flat=True))
            super().delete_queryset(request, queryset)
            for system_id in sorted(system_ids):
                request_compile(
                    system_id, reason=f"web app deleted {queryset.model._meta.verbose_name_plural}"
                )


class ReadOnlyAdmin(RoleScopedAdmin):
    """Rows written only by the service itself (deliveries, compile requests, keys)."""

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


def apply_to_selected(model_admin, request, queryset, service, done: str) -> None:
    """Run a trash service on each selected row as the signed-in user, and say how many;
    the admin names the row the way the service does (`row_name`: trail, point)."""
    selected = list(queryset)
    for obj in selected:
        service(**{model_admin.row_name: obj}, actor=web_actor(request))
    model_admin.message_user(request, f"{done} {len(selected)}.", messages.SUCCESS)
