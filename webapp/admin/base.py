"""Bases every web-app page shares."""

from django.contrib import messages
from django.db import transaction
from django.utils import timezone

from core.compiles import request_compile
from core.models import Audited
from webapp.scoping import RoleScopedAdmin


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
    """Run a trash service on each selected row as the signed-in user, and say how many."""
    selected = list(queryset)
    for obj in selected:
        service(obj, request.user.pk)
    model_admin.message_user(request, f"{done} {len(selected)}.", messages.SUCCESS)
