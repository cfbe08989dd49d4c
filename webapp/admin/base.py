"""Bases every web-app page shares."""

from django import forms
from django.contrib import messages
from django.db import transaction
from djangorestframework_camel_case.util import camel_to_underscore

from core.actors import Actor, Via
from core.errors import DomainError
from webapp.scoping import RoleScopedAdmin


def web_actor(request) -> Actor:
    """The signed-in person, writing through the web app."""
    return Actor(request.user.pk, Via.WEB_APP)


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


class DeleteThroughService:
    """Delete for good (the row's page, or the list's "Delete selected") through the service
    that owns the removal and its compile request, the selected rows in one transaction.
    `delete_function` takes the row as `row_name`, and the actor."""

    delete_function = None
    row_name = ""

    def delete_model(self, request, obj) -> None:
        self.delete_function(**{self.row_name: obj}, actor=web_actor(request))

    def delete_queryset(self, request, queryset) -> None:
        with transaction.atomic():
            for obj in queryset:
                self.delete_model(request, obj)


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
