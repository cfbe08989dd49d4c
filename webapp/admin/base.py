"""Bases the admin modules share: saves and deletes through the services, read-only pages."""

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import actions as django_actions
from django.db import transaction
from django.http import HttpResponseRedirect
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from core.errors import DomainError
from webapp.actors import web_actor
from webapp.outcomes import ActionOutcome, report_outcome
from webapp.refusals import add_refusal
from webapp.scoping import RoleScopedAdmin


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

    @staticmethod
    def stand_for(obj, created) -> None:
        """The admin's unsaved object becomes the row a service created: Django's admin reads
        its pk and adding state after `save_model` for the log entry, the message and the
        redirect, and the service, not the admin, saved the row."""
        obj.pk = created.pk
        obj._state.adding = False


class RefusedForm(forms.BaseForm):
    """A form a service refused: the refusal is its error (webapp.refusals), so it is invalid."""

    refusal: DomainError

    def clean(self):
        cleaned = super().clean()
        add_refusal(self, self.refusal)
        return cleaned


class DeleteThroughService(RoleScopedAdmin):
    """Delete (the row's page, or the list's "Delete selected") through the service that owns
    the removal and its compile request: the selected rows the person may delete, in one
    transaction. `delete_function` takes the row as `row_name`, and the actor."""

    delete_function = None
    row_name = ""

    def delete_model(self, request, obj) -> None:
        self.delete_function(**{self.row_name: obj}, actor=web_actor(request))

    def delete_queryset(self, request, queryset) -> None:
        with transaction.atomic():
            for obj in self.scoped(request, queryset, "delete"):
                self.delete_model(request, obj)

    def delete_view(self, request, object_id, extra_context=None):
        """A row the service refuses (someone else moved it meanwhile) is told on the list,
        with nothing done, rather than failing the page."""
        try:
            return super().delete_view(request, object_id, extra_context)
        except DomainError as error:
            self.message_user(request, str(error), messages.ERROR)
            return HttpResponseRedirect(
                reverse(f"admin:{self.opts.app_label}_{self.opts.model_name}_changelist")
            )


@admin.action(permissions=["delete"], description=django_actions.delete_selected.short_description)
def delete_selected(model_admin, request, queryset):
    """The admin's "Delete selected" (its confirmation page first), done by one call of the
    admin's `bulk_delete_function`: one transaction and one compile request per system. As
    the other list actions, a refused row is named with the reason and the others are done.
    A selection holding a row the person may not delete is the admin's: its page says so,
    and nothing is deleted."""
    _, _, perms_needed, protected = model_admin.get_deleted_objects(queryset, request)
    if not request.POST.get("post") or perms_needed or protected:
        return django_actions.delete_selected(model_admin, request, queryset)
    rows = list(model_admin.scoped(request, queryset, "delete"))
    outcome = ActionOutcome()
    with transaction.atomic():
        done = run_bulk(model_admin, request, rows, model_admin.bulk_delete_function, outcome)
        model_admin.log_deletions(request, done)
    report_outcome(
        model_admin,
        request,
        outcome,
        done=model_admin.deleted_message,
        not_done=model_admin.not_deleted_message,
    )


class BulkDeleteThroughService(DeleteThroughService):
    """ "Delete selected" through a bulk service (`bulk_delete_function`, which takes the rows
    as `rows_name` and returns a trails.trash.BulkOutcome)."""

    bulk_delete_function = None
    rows_name = ""
    deleted_message = _("Deleted for good: %(count)d.")
    not_deleted_message = _("Not deleted")

    def get_actions(self, request):
        actions = super().get_actions(request)
        if "delete_selected" in actions:
            description = actions["delete_selected"][2]
            actions["delete_selected"] = (delete_selected, "delete_selected", description)
        return actions


class ReadOnlyAdmin(RoleScopedAdmin):
    """Rows written only by the service itself (deliveries, compile requests, keys)."""

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


def run_bulk(model_admin, request, rows: list, service, outcome: ActionOutcome) -> list:
    """Run a bulk service (trails.trash) on `rows` as the signed-in user, the admin naming them
    the way the service does (`rows_name`: trails, points), and add what it did and refused
    to `outcome`; the rows done."""
    if not rows:
        return []
    result = service(**{model_admin.rows_name: rows}, actor=web_actor(request))
    for row, error in result.refused:
        outcome.refuse([row], str(error))
    outcome.count(result.done)
    return result.done


def apply_to_selected(model_admin, request, queryset, service, done: str, not_done: str) -> None:
    """Run a bulk service on the selected rows, and report the outcome."""
    outcome = ActionOutcome()
    run_bulk(model_admin, request, list(queryset), service, outcome)
    report_outcome(model_admin, request, outcome, done=done, not_done=not_done)
